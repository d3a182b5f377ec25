"""Qwen2-VL (Hugging Face transformers, tiny configuration): a vision-language model: images cut into
patches of 2 frames (each still image repeated) by a Conv3d, a vision tower with 2-D rotary positions
whose attention runs per image over ``cu_seqlens`` chunks, each 2 x 2 of patches merged into one token
by an MLP and written into the text's image-token places (``masked_scatter``); the language model's
multimodal rotary positions (``mrope_section``: a head's frequencies split between time, row and
column, the image tokens' positions their grid coordinates, found by ``get_rope_index`` from the token types)."""

import numpy as np
import torch
from common import run
from transformers import Qwen2VLConfig, Qwen2VLForConditionalGeneration

VOCAB, IMAGE, START, END = 96, 93, 94, 95
SIZE, PATCH = 16, 4  # 4 x 4 patches an image, merged 2 x 2 into 4 image tokens


def build() -> Qwen2VLForConditionalGeneration:
    text = {"vocab_size": VOCAB, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
            "num_attention_heads": 2, "num_key_value_heads": 1, "max_position_embeddings": 64,
            "bos_token_id": 0, "eos_token_id": 1,
            "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 3, 3]}}  # fmt: skip
    vision = {"depth": 2, "embed_dim": 32, "hidden_size": 32, "num_heads": 2, "mlp_ratio": 2, "patch_size": PATCH,
              "spatial_merge_size": 2, "temporal_patch_size": 2}  # fmt: skip
    config = Qwen2VLConfig(
        text_config=text, vision_config=vision, image_token_id=IMAGE, vision_start_token_id=START,
        vision_end_token_id=END,
    )  # fmt: skip
    return Qwen2VLForConditionalGeneration(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 random 16 x 16 images, each in a random text of 16 tokens (5 text tokens, the image's start,
    4 image tokens and end, 5 text tokens); cross entropy of the text tokens' next tokens."""
    grid = SIZE // PATCH
    pixels = rng.standard_normal((2, 3, SIZE, SIZE)).astype(np.float32)
    # the processor's layout: frames x channels x merged rows x rows x merged columns x columns, per patch
    frames = np.repeat(pixels[:, None], 2, axis=1).reshape(2, 1, 2, 3, grid // 2, 2, PATCH, grid // 2, 2, PATCH)
    patches = frames.transpose(0, 1, 4, 7, 5, 8, 3, 2, 6, 9).reshape(2 * grid * grid, 3 * 2 * PATCH * PATCH)
    text = rng.integers(0, IMAGE, (2, 10))
    ids = np.concatenate([text[:, :5], np.full((2, 1), START), np.full((2, 4), IMAGE), np.full((2, 1), END),
                          text[:, 5:]], 1)  # fmt: skip
    labels = np.where(ids == IMAGE, -100, ids)
    return model(
        input_ids=torch.from_numpy(ids), pixel_values=torch.from_numpy(np.ascontiguousarray(patches)),
        image_grid_thw=torch.tensor([[1, grid, grid]] * 2), mm_token_type_ids=torch.from_numpy((ids == IMAGE) * 1),
        labels=torch.from_numpy(labels),
    ).loss  # fmt: skip


if __name__ == "__main__":
    run(build, loss_of)
