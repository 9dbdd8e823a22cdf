# Example file for the sm120check demo, written for this repository.
import torch


def get_default_config(M: int, E: int, N: int, K: int, topk: int):
    """Default Triton config for the fused MoE kernel."""
    major, minor = torch.cuda.get_device_capability()
    config = {
        "BLOCK_SIZE_M": 64,
        "BLOCK_SIZE_N": 128,
        "BLOCK_SIZE_K": 128,
        "GROUP_SIZE_M": 32,
        "num_warps": 8,
        "num_stages": 3,  # local tuning
    }
    if M < E:
        config["BLOCK_SIZE_M"] = 16
    return config
