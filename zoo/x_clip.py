"""X-CLIP (Hugging Face transformers, tiny configuration): video-text contrastive learning: each frame
through a CLIP vision tower whose layers add a message token per frame, exchanged across the frames by
their own attention (cross-frame communication) before the frame's attention; a multi-frame integration
transformer over the frames' class tokens, mean-pooled; a prompt generator whose cross-attention from
the text to the frames' patch tokens shifts each text embedding (scaled by a learned alpha); the
symmetric contrastive loss of the video-text logits."""

import numpy as np
import torch
from common import run
from transformers import XCLIPConfig, XCLIPModel

VOCAB = 64


def build() -> XCLIPModel:
    config = XCLIPConfig(
        text_config={
            "vocab_size": VOCAB, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
            "num_attention_heads": 2, "max_position_embeddings": 16, "eos_token_id": VOCAB - 1,
        },
        vision_config={
            "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 2,
            "mit_hidden_size": 32, "mit_intermediate_size": 64, "mit_num_hidden_layers": 1,
            "mit_num_attention_heads": 2, "image_size": 32, "patch_size": 8, "num_frames": 4,
        },
        projection_dim=32, prompt_layers=1, prompt_num_attention_heads=2, prompt_projection_dropout=0.0,
    )  # fmt: skip
    return XCLIPModel(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """3 random clips of 4 frames of 32 x 32 and 3 captions of 10 tokens (the last the end token)."""
    video = torch.from_numpy(rng.standard_normal((3, 4, 3, 32, 32)).astype(np.float32))
    ids = rng.integers(1, VOCAB - 1, (3, 10))
    ids[:, -1] = VOCAB - 1
    return model(input_ids=torch.from_numpy(ids), pixel_values=video, return_loss=True).loss


if __name__ == "__main__":
    run(build, loss_of)
