#!/usr/bin/env bash
# tex2 (issue 20): sRGB decode table, BC1/BC7 over 4096 random blocks, BC3 alpha over all endpoint pairs, TXQ
# dimensions (txq_dims, new in textures.cu; the sm90 cubin is rebuilt and committed) on
# the H200 through CuPy, with the existing textures.sm90.cubin (no rebuild). Run from the repository root.
set -euo pipefail
out="${OUT:-/tmp/tex2_out}"
mkdir -p "$out/textures2"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 corpus/silicon/textures/record_textures.py "$out/textures2" --only \
  rgba8_srgb_point_all,rgba8_srgb_linear_all,bc1_point_hash,bc7_point_hash,bc3_point_alpha_all,txq_1d,txq_2d,txq_3d,txq_layered,cube_rgba8_point,cube_rgba8_linear
cat "$out/textures2/log.txt"
tar -C "$out" -czf "$out/textures2.tgz" textures2
ls -l "$out/textures2.tgz"
