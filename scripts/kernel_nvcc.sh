# SPDX-License-Identifier: MIT
# Sourced by scripts/kernel_regs.sh and kernel_sass.sh: `kernel_need_nvcc NAME NVCC` exits 2,
# saying so as NAME, where NVCC is no program; `kernel_nvcc NAME NVCC ARCH ROOT FILE
# OUT LOG KIND` compiles one gpu/ source for one architecture with the build's flags (C++17,
# -O3, -fmad=false; SIMCTL_CUDA_ARCHS, which gpu/device.cu reports, set to that architecture)
# and ptxas -v's report appended to LOG, as an object (KIND -c) or a cubin (KIND -cubin); where
# it does not compile, says so as NAME with LOG's last lines and exits 1.
kernel_need_nvcc() {
  if [ ! -x "$2" ]; then
    echo "$1: $2: no nvcc (give --nvcc PATH)" >&2
    exit 2
  fi
}

kernel_nvcc() {
  local name=$1 nvcc=$2 arch=$3 root=$4 file=$5 out=$6 log=$7 kind=$8
  if ! "$nvcc" -std=c++17 -arch="$arch" -O3 -fmad=false -Xptxas -v -I"$root" -I"$root/core" \
    -I"$root/gpu" -DSIMCTL_CUDA_ARCHS="\"$arch\"" "$kind" "$file" -o "$out" >>"$log" 2>&1; then
    echo "$name: $file did not compile:" >&2
    tail -5 "$log" >&2
    exit 1
  fi
}
