#!/usr/bin/env bash
# The GPU evidence, in one call of at most 9 minutes (benchmarks/README.md, "On a GPU").
#
#   bash benchmarks/gpu_check.sh [OUTDIR]            # on the GPU machine (OUTDIR: $OUT)
#   bash benchmarks/gpu_check.sh --dry-run [OUTDIR]  # here, on the strict CPU stand-in
#
# GPU_CHECK_SKIP="name name" skips steps (a rerun of the ones that failed).
# Steps, each under its own time limit and all under one budget (GPU_CHECK_BUDGET seconds,
# default 500, so that the summary is always written), each recorded in OUTDIR/steps.tsv
# (name, exit code, seconds) and OUTDIR/log.txt, the run going on after a failed step.
# The steps' JSON files go to OUTDIR/parts/ and end packed in OUTDIR/parts.tgz, so that the
# folder holds four files (the device tool brings back at most eight):
#   1. device:    the card, the driver and the libraries' versions (device.json)
#   2. tests:     pytest -m cuda (tests/test_cuda.py) on real CuPy (failures listed in log.txt)
#   3. demo:      python -m ftransforms.demo --device cuda
#   4. transfers: no transform copies to the host (python -m benchmarks.gpu_check transfers)
#   4b. compiled: ft.jit replay vs its compiled tier (CuPy kernels) vs jax.jit, W1 and W5
#                 (python -m benchmarks.gpu_check compiled; compiled.json)
#   4c. profile:  cProfile of the replay and the compiled tier, and one CUDA-graph capture
#                 (python -m benchmarks.gpu_check profile; log.txt)
#   4d. host:     the host's microseconds per CuPy call kind (ufunc, ElementwiseKernel,
#                 RawKernel, empty, matmul, sum, views) and 16 kernels as one CUDA graph
#   4e. graph:    the CUDA-graph tier (FTRANSFORMS_JIT_CUDA_GRAPHS=always) on W1/W3/W4/W6:
#                 each graph result against the replay's on three input sets, and the times
#                 (python -m benchmarks.gpu_graph_probe; log.txt; exit 1 on a difference)
#   5. bench_gpu: W1 B=32..4096, W3 (D=64..1024), W4 MAML, W6 LSTM on CuPy, side by side
#                 with torch.func on CUDA and jax.jit on the GPU (bench_gpu_w1.json,
#                 bench_gpu_w34.json, bench_gpu_w6.json: one step each, so a slow one
#                 loses only its own rows)
#   6. bench_cpu: the large-batch rows on the CPU, to show where the GPU wins (bench_cpu.json)
# then OUTDIR/summary.json gathers them.
#
# The GPU machine has CuPy, torch, JAX, numba and pytest, but not optree, and no network:
# optree comes from a wheel in .whl/ at the repository root, fetched beforehand on a
# machine with PyPI (benchmarks/fetch_gpu_wheels.sh) and carried along (device tool:
# carry [".whl"]).
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)

DRY=0
if [ "${1:-}" = "--dry-run" ]; then
  DRY=1
  shift
fi
OUTDIR=${1:-${OUT:-$REPO/gpu_check_out}}
PARTS="$OUTDIR/parts"
mkdir -p "$OUTDIR" "$PARTS"
LOG="$OUTDIR/log.txt"
BUDGET=${GPU_CHECK_BUDGET:-500}
DEADLINE=$(($(date +%s) + BUDGET))
: >"$LOG"
: >"$OUTDIR/steps.tsv"
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
# JAX would take 75% of the card at its first use and starve CuPy in the same process.
export XLA_PYTHON_CLIENT_PREALLOCATE=false

say() { echo "[gpu_check] $*" | tee -a "$LOG"; }

step() { # step NAME SECONDS COMMAND...
  local name=$1 limit=$2
  shift 2
  if [[ " ${GPU_CHECK_SKIP:-} " == *" $name "* ]]; then
    say "=== $name: skipped (GPU_CHECK_SKIP)"
    return
  fi
  local left=$((DEADLINE - $(date +%s) - 10))
  if [ "$left" -lt 5 ]; then
    say "=== $name: skipped, the budget of ${BUDGET}s is spent"
    printf '%s\t%s\t%.1f\n' "$name" 124 0 >>"$OUTDIR/steps.tsv"
    return
  fi
  [ "$left" -lt "$limit" ] && limit=$left
  say "=== $name (limit ${limit}s): $*"
  local t0 rc
  t0=$(date +%s.%N)
  timeout --kill-after=10 "$limit" "$@" 2>&1 | tee -a "$LOG"
  rc=${PIPESTATUS[0]}
  local t1
  t1=$(date +%s.%N)
  printf '%s\t%s\t%s\n' "$name" "$rc" "$(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }")" >>"$OUTDIR/steps.tsv"
  say "=== $name: exit $rc"
}

# -- 0. optree from the carried wheel ---------------------------------------------------------
if ! "$PY" -c "import optree" 2>/dev/null; then
  if ls "$REPO"/.whl/optree-*.whl >/dev/null 2>&1; then
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
      --target /tmp/ftransforms-site "$REPO"/.whl/*.whl 2>&1 | tee -a "$LOG"
    export PYTHONPATH=/tmp/ftransforms-site${PYTHONPATH:+:$PYTHONPATH}
  else
    say "optree is missing and no wheel is in .whl/: run benchmarks/fetch_gpu_wheels.sh first"
    exit 2
  fi
fi
export PYTHONPATH=$REPO${PYTHONPATH:+:$PYTHONPATH}

if [ $DRY = 1 ]; then
  DEVICE=cpu
  BACKEND=strict
  QUICK=(--quick --reps 2)
  say "dry run: the strict CuPy stand-in and the CPU, small sizes"
else
  DEVICE=cuda
  BACKEND=cupy
  QUICK=(--reps 10 --passes 1)
fi

# -- 1. the device and the versions -----------------------------------------------------------
step device 60 "$PY" - "$PARTS/device.json" "$BACKEND" <<'EOF'
import importlib, json, platform, subprocess, sys
info = {"python": platform.python_version(), "machine": platform.machine()}
for name in ("numpy", "optree", "cupy", "torch", "jax", "jaxlib", "numba", "scipy", "ftransforms"):
    try:
        info[name] = importlib.import_module(name).__version__
    except Exception as err:  # noqa: BLE001
        info[name] = f"missing ({type(err).__name__})"
try:
    info["nvidia-smi"] = subprocess.run(
        ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
        capture_output=True, text=True, timeout=20).stdout.strip()
except (OSError, subprocess.SubprocessError) as err:
    info["nvidia-smi"] = f"unavailable ({type(err).__name__})"
if sys.argv[2] == "cupy":
    import cupy
    props = cupy.cuda.runtime.getDeviceProperties(0)
    info["cupy_device"] = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    info["cuda_runtime"] = cupy.cuda.runtime.runtimeGetVersion()
print(json.dumps(info, indent=1))
open(sys.argv[1], "w").write(json.dumps(info, indent=1))
EOF

# -- 2. the CUDA tests ------------------------------------------------------------------------
# JAX is the tests' oracle: on the CPU, so that it takes nothing from the card.
XDIST=()
if "$PY" -c "import xdist" 2>/dev/null && [ $DRY = 0 ]; then XDIST=(-n 8); fi
step tests 110 env JAX_PLATFORMS=cpu "$PY" -m pytest -q -rfE -p no:cacheprovider -m cuda \
  "${XDIST[@]}" tests/test_cuda.py tests/test_cupy_fallbacks.py

# -- 3. the demo ------------------------------------------------------------------------------
step demo 40 "$PY" -m ftransforms.demo --device "$DEVICE"

# -- 4. no hidden host copies -----------------------------------------------------------------
step transfers 35 "$PY" -m benchmarks.gpu_check transfers --backend "$BACKEND" \
  --json "$PARTS/transfers.json"

# -- 4b. the compiled tier on the device ------------------------------------------------------
if [ $DRY = 1 ]; then
  step compiled 90 "$PY" -m benchmarks.gpu_check compiled --backend strict --w1-sizes 16 \
    --reps 2 --json "$PARTS/compiled.json"
else
  step compiled 70 "$PY" -m benchmarks.gpu_check compiled --backend cupy \
    --w1-sizes 32,256,4096 --reps 20 --json "$PARTS/compiled.json"
fi

# -- 4c. where a call's time goes on the device (cProfile; one CUDA-graph capture) -------
if [ $DRY = 1 ]; then
  step profile 60 "$PY" -m benchmarks.gpu_check profile --backend strict --batch 8 --calls 5
else
  step profile 45 "$PY" -m benchmarks.gpu_check profile --backend cupy --batch 32 --calls 200
fi

# -- 4d. the host's cost of each kind of CuPy call (what bounds small batches) -------------
step host 40 "$PY" -m benchmarks.gpu_check host --backend "$BACKEND" --calls 200

# -- 4e. the CUDA-graph tier against the replay (NOTE [CUDA graphs]) ------------------------
if [ $DRY = 0 ]; then
  step graph 60 "$PY" -m benchmarks.gpu_graph_probe --reps 50
fi

# -- 5. the benchmarks on the GPU, side by side -----------------------------------------------
PEERS=ftransforms,ftransforms.jit,ftransforms.compiled,torch.func,jax.jit,numpy
if [ $DRY = 1 ]; then
  BENCH=(--device cpu --peers ftransforms,ftransforms.jit,numpy "${QUICK[@]}")
  step bench_gpu_w1 60 "$PY" -m benchmarks "${BENCH[@]}" --workloads W1 \
    --json "$PARTS/bench_gpu_w1.json"
  step bench_gpu_w34 60 "$PY" -m benchmarks "${BENCH[@]}" --workloads W3,W4 \
    --json "$PARTS/bench_gpu_w34.json"
  step bench_gpu_w6 60 "$PY" -m benchmarks "${BENCH[@]}" --workloads W6 \
    --json "$PARTS/bench_gpu_w6.json"
else
  BENCH=(--device cuda --peers "$PEERS" "${QUICK[@]}")
  step bench_gpu_w1 110 "$PY" -m benchmarks "${BENCH[@]}" --workloads W1 \
    --sizes "W1=32,256,1024,4096" --json "$PARTS/bench_gpu_w1.json"
  step bench_gpu_w34 120 "$PY" -m benchmarks "${BENCH[@]}" --workloads W3,W4 \
    --sizes "W3=64,256,1024" --json "$PARTS/bench_gpu_w34.json"
  step bench_gpu_w6 80 "$PY" -m benchmarks "${BENCH[@]}" --workloads W6 \
    --json "$PARTS/bench_gpu_w6.json"
fi

# -- 6. the large-batch rows on the CPU (where the GPU should win) ----------------------------
if [ $DRY = 1 ]; then
  step bench_cpu 60 "$PY" -m benchmarks --device cpu --workloads W1 --peers ftransforms \
    --sizes "W1=64" --reps 2 --passes 1 --json "$PARTS/bench_cpu.json"
else
  step bench_cpu 100 "$PY" -m benchmarks --device cpu --workloads W1,W3 \
    --peers ftransforms,torch.func --sizes "W1=4096;W3=1024" --reps 3 --passes 1 \
    --json "$PARTS/bench_cpu.json"
fi

"$PY" -m benchmarks.gpu_check summary --dir "$OUTDIR" 2>&1 | tee -a "$LOG"
rc=${PIPESTATUS[0]}
tar czf "$OUTDIR/parts.tgz" -C "$OUTDIR" parts && rm -rf "$PARTS"
exit "$rc"
