"""The three interpreters: batching (vmap), forward (jvp) and reverse (vjp/grad)."""
