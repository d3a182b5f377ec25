"""VideoPrism (Hugging Face transformers, tiny configuration): a factorised video encoder, each frame's
tubelets embedded by a 3-D convolution of temporal extent 1, spatial layers over each frame's patches, then
temporal layers over each patch's frames; attention logits soft-capped by ``tanh``, layer norms scaled by
``1 + gamma``, the learned spatial and temporal position embeddings resized by antialiased bilinear
interpolation (a 2 x 2 grid up to 3 x 3, 4 frames up to 6); auxiliary layers, attention pooling whose query
is scaled per dimension by ``softplus`` and the embeddings L2-normalised by ``rsqrt``; a text tower with a
class token; trained on the contrastive loss of exponentiated similarities normalised per column, by
``logsigmoid``."""

import numpy as np
import torch
from common import run, tokens
from transformers import VideoPrismClipModel, VideoPrismConfig

VOCAB, FRAMES, SIZE = 64, 6, 24


def build() -> VideoPrismClipModel:
    vision = {"image_size": 16, "num_frames": 4, "tubelet_size": [1, 8, 8], "hidden_size": 32,
              "num_attention_heads": 2, "intermediate_size": 64, "num_spatial_layers": 1, "num_temporal_layers": 1,
              "num_auxiliary_layers": 1}  # fmt: skip
    text = {"vocab_size": VOCAB, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
            "num_attention_heads": 2, "max_position_embeddings": 16}  # fmt: skip
    return VideoPrismClipModel(VideoPrismConfig(vision_config=vision, text_config=text))


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The contrastive loss of 3 random clips of 6 frames of 24 x 24 and 3 random captions of 10 tokens."""
    video = torch.from_numpy(rng.standard_normal((3, FRAMES, 3, SIZE, SIZE)).astype(np.float32))
    ids = tokens(rng, VOCAB, 3, 10)
    return model(pixel_values_videos=video, input_ids=ids, interpolate_pos_encoding=True, return_loss=True).loss


if __name__ == "__main__":
    run(build, loss_of)
