#!/bin/sh
# Rebuilds the fixtures of tests/data/kernels (listed in manifest.tsv with their flags) from
# saxpy.cu and scale.cu. Needs the CUDA toolkit (nvcc 13.0 made the committed ones; another
# version may order or compress entries differently, so review `git diff --stat` after a run).
# The tests themselves only read the committed files: CI has no CUDA toolkit.
#   tests/data/kernels/make_fixtures.sh [NVCC]
set -eu
cd "$(dirname "$0")"
nvcc=${1:-${NVCC:-/usr/local/cuda/bin/nvcc}}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Objects: every line of manifest.tsv whose flags do not start with "link" or "-fatbin".
grep -v '^#' manifest.tsv | while IFS='	' read -r name flags expected; do
  case "$flags" in
    link*|-fatbin*|ar*) continue ;;
  esac
  # hostonly.o: from hostonly.cu (no kernel), guard800_z.o: from guard800.cu (kernel for
  # __CUDA_ARCH__ >= 800 only), subset*.o: from subset.cu (kernB for __CUDA_ARCH__ < 1000
  # only), oldonly_jit.o: from oldonly.cu (its only kernel for __CUDA_ARCH__ < 1000); their
  # flags end with a note in parentheses.
  src=saxpy.cu
  case "$name" in
    hostonly.o) src=hostonly.cu flags=${flags%% (*} ;;
    guard800_z.o) src=guard800.cu flags=${flags%% (*} ;;
    subset.o|subset_z.o|subset_ptx.o|subset_ptx_z.o|subset_jit.o|subset_jit2.o)
      src=subset.cu flags=${flags%% (*} ;;
    oldonly_jit.o) src=oldonly.cu flags=${flags%% (*} ;;
  esac
  # shellcheck disable=SC2086  # the flags are words
  "$nvcc" -c "$src" -o "$name" $flags
done

# libtwo.so: two translation units, each its own fat binary, linked without the CUDA runtime
# (a shared library may leave cudaRegisterFatBinary & co. undefined), so no other fat binary.
"$nvcc" -c -Xcompiler -fPIC saxpy.cu -o "$tmp/saxpy.o" \
  -gencode arch=compute_120,code=sm_120 -gencode arch=compute_90,code=sm_90
"$nvcc" -c -Xcompiler -fPIC scale.cu -o "$tmp/scale.o" \
  -gencode arch=compute_80,code=sm_80 -gencode arch=compute_80,code=compute_80
"$nvcc" -shared -cudart none "$tmp/saxpy.o" "$tmp/scale.o" -o libtwo.so

# libstub.so: linked by nvcc with the shared CUDA runtime, which adds a fat binary of its own
# for nvcc's default architecture (sm_75) holding no kernel (no .text section in its cubin).
"$nvcc" -c -Xcompiler -fPIC saxpy.cu -o "$tmp/saxpy120.o" -gencode arch=compute_120,code=sm_120
"$nvcc" -shared -cudart shared "$tmp/saxpy120.o" -o libstub.so

# ptx120_cudart_static.fatbin: the .nv_fatbin section of a PTX-only shared library compiled and
# linked by nvcc in one step (static CUDA runtime, its default): nvlink's device link for
# --arch=compute_120 has nothing to link and leaves an empty fat binary before the module's own.
"$nvcc" -shared -Xcompiler -fPIC -gencode arch=compute_120,code=compute_120 saxpy.cu \
  -o "$tmp/libptx.so"
objcopy -O binary --only-section=.nv_fatbin "$tmp/libptx.so" ptx120_cudart_static.fatbin

# libarch.a: a static archive of three of the objects above (one fat binary per member).
rm -f libarch.a
ar rcs libarch.a sm90.o sm120a.o hostonly.o

# subset_big_z.fatbin: the .nv_fatbin section of subset_big.cu (subset.cu with 400 filler
# kernels) built compressed for sm_90 and sm_120: each cubin decompresses past 1 MiB.
"$nvcc" -c -Xfatbin -compress-all -gencode arch=compute_90,code=sm_90 \
  -gencode arch=compute_120,code=sm_120 subset_big.cu -o "$tmp/subset_big_z.o"
objcopy -O binary --only-section=.nv_fatbin "$tmp/subset_big_z.o" subset_big_z.fatbin

# saxpy.fatbin: a bare fat binary (nvcc -fatbin), no ELF around it.
"$nvcc" -fatbin saxpy.cu -o saxpy.fatbin \
  -gencode arch=compute_120,code=sm_120 -gencode arch=compute_90,code=compute_90

# saxpy_sm120.cubin, saxpy_sm120a.cubin, saxpy_sm120.ptx: bare cubins and PTX, in no fat binary
# (the kernels command reads them as they are; not in manifest.tsv, which lists fat binaries).
"$nvcc" -cubin -arch=sm_120 saxpy.cu -o saxpy_sm120.cubin
"$nvcc" -cubin -arch=sm_120a saxpy.cu -o saxpy_sm120a.cubin
"$nvcc" -ptx -arch=sm_120 saxpy.cu -o saxpy_sm120.ptx

strip --strip-debug ./*.o ./*.so 2>/dev/null || true
ls -l ./*.o ./*.so ./*.fatbin

# Seeds of the kernels fuzz target (tests/fuzz/corpus/kernels): each fixture's fat-binary section
# as a bare fat binary, and the whole files up to 16 KiB (run.sh's -max_len).
seeds=../../fuzz/corpus/kernels
mkdir -p "$seeds"
for f in ./*.o ./*.so ./*.fatbin; do
  name=$(basename "$f")
  for section in .nv_fatbin __nv_relfatbin; do
    objcopy -O binary --only-section="$section" "$f" "$tmp/s" 2>/dev/null || continue
    [ -s "$tmp/s" ] && [ "$(wc -c < "$tmp/s")" -le 16384 ] && cp "$tmp/s" "$seeds/$name$section"
  done
  [ "$(wc -c < "$f")" -le 16384 ] && cp "$f" "$seeds/$name"
done
ls "$seeds" | wc -l

# embedded.o: no fat-binary section; an sm_90 cubin and an sm_90 fat binary of saxpy.cu as
# const arrays in .rodata (xxd -i, as bin2c makes them), compiled by the host compiler. Not in
# manifest.tsv (cuobjdump does not see such code).
"$nvcc" -cubin -arch=sm_90 saxpy.cu -o "$tmp/k90.cubin"
"$nvcc" -fatbin -gencode arch=compute_90,code=sm_90 saxpy.cu -o "$tmp/k90.fatbin"
(cd "$tmp" && xxd -i -n kCubinSm90 k90.cubin | sed 's/^unsigned char/const unsigned char/' > cubin.h &&
  xxd -i -n kFatbinSm90 k90.fatbin | sed 's/^unsigned char/const unsigned char/' > fatbin.h)
c++ -O1 -c -fPIC -I"$tmp" embedded.cpp -o embedded.o
# embedded_beside.so: a registered sm_120 kernel (.nv_fatbin) and the same sm_90 fat binary as
# a const array in .rodata (fatbin.h above).
"$nvcc" -shared -Xcompiler -fPIC -cudart none -I"$tmp" -gencode arch=compute_120,code=sm_120 \
  embedded_beside.cu -o embedded_beside.so
strip --strip-debug embedded_beside.so
