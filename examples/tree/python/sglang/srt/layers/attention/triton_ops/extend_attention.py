# Copyright (c) the example authors.
# SPDX-License-Identifier: Apache-2.0
# Local build: vendored into this deployment image.
# Example file for the sm120check demo, written for this repository.
# It mimics the shape of a Triton attention launcher tuned on Hopper.
import torch

CUDA_CAPABILITY = torch.cuda.get_device_capability()


def _get_block_sizes_for_extend_attention(Lq: int, Lv: int):
    """Pick Triton tile sizes for the extend-attention kernel."""
    if Lq <= 128:
        num_stages = 2
    else:
        num_stages = 1

    if CUDA_CAPABILITY[0] >= 9:
        # Hopper: 232448 bytes of opt-in shared memory per block.
        if Lq <= 256:
            BLOCK_M, BLOCK_N = (128, 64)
        else:
            BLOCK_M, BLOCK_N = (32, 64)
    elif CUDA_CAPABILITY[0] >= 8:
        if Lq <= 128:
            BLOCK_M, BLOCK_N = (128, 128)
        else:
            BLOCK_M, BLOCK_N = (64, 64)
    else:
        BLOCK_M, BLOCK_N = (64, 64) if Lq <= 128 else (32, 32)

    num_warps = 4 if Lq <= 64 else 8
    return BLOCK_M, BLOCK_N, num_warps, num_stages


def extend_attention_fwd(q, k, v, o, sm_scale=None):
    Lq, Lv = q.shape[-1], v.shape[-1]
    BLOCK_M, BLOCK_N, num_warps, num_stages = _get_block_sizes_for_extend_attention(Lq, Lv)
    grid = (q.shape[0], q.shape[1], (q.shape[2] + BLOCK_M - 1) // BLOCK_M)
    return grid, num_warps, num_stages
