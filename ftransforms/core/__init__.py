"""Core machinery: primitives, the interpreter stack, tracers and errors."""
