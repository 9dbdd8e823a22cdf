# Example file for the sm120check demo, written for this repository.
import torch

CUDA_CAPABILITY = torch.cuda.get_device_capability()


def _decode_grouped_config(head_dim: int):
    """Tile sizes for the grouped decode kernel."""
    BLOCK = 64
    num_stages = 2
    if CUDA_CAPABILITY[0] == 12:
        # SM120: keep the pipeline shallow to fit 101376 bytes of shared memory.
        BLOCK_H = 16
        num_stages = 1
    elif CUDA_CAPABILITY[0] >= 9:
        BLOCK_H = 16
        num_stages = 3
    else:
        BLOCK_H = 16
    return BLOCK, BLOCK_H, num_stages
