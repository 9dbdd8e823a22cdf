# Example file for the sm120check demo, written for this repository. It stands for a later
# release than the one the SM120 patch was made against: the lines around the fix were retuned
# since, so the patch's context no longer matches, but its change is in.
import torch

CUDA_CAPABILITY = torch.cuda.get_device_capability()


def _decode_grouped_config(head_dim: int):
    """Tile sizes for the grouped decode kernel."""
    BLOCK = 32 if head_dim > 128 else 64
    num_stages = 2
    if CUDA_CAPABILITY[0] == 12:
        # SM120: keep the pipeline shallow to fit 101376 bytes of shared memory.
        BLOCK_H = 16
        num_stages = 1
    elif CUDA_CAPABILITY[0] >= 9:
        BLOCK_H = 16
        num_stages = 4
    else:
        BLOCK_H = 8
    return BLOCK, BLOCK_H, num_stages
