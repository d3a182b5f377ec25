"""LayoutLMv3 (Hugging Face transformers, tiny configuration): text tokens with their boxes' 2-D
position embeddings (x, y, height and width) beside an image's patches, one sequence, attention with a
1-D and a 2-D relative position bias (log-bucketed, looked up per head), the scores divided by 32, less
their row's maximum, multiplied by 32 again before the softmax (CogView's relaxation), classified from
the first token."""

import numpy as np
import torch
from common import images, run, tokens
from transformers import LayoutLMv3Config, LayoutLMv3ForSequenceClassification

VOCAB, LABELS = 96, 3


def build() -> LayoutLMv3ForSequenceClassification:
    config = LayoutLMv3Config(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=40, max_2d_position_embeddings=64, coordinate_size=6, shape_size=4,
        rel_pos_bins=8, max_rel_pos=16, rel_2d_pos_bins=16, max_rel_2d_pos=32, input_size=32, patch_size=8,
        num_labels=LABELS, pad_token_id=1, bos_token_id=0, eos_token_id=2,
    )  # fmt: skip
    return LayoutLMv3ForSequenceClassification(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """Cross entropy of 4 documents (16 random tokens with random boxes in [0, 63], a random 32 x 32
    image) against random labels."""
    ids = tokens(rng, VOCAB)
    corners = np.sort(rng.integers(0, 64, (4, 16, 2, 2)), axis=2)  # [..., i, j]: corner i's x (j 0) or y (j 1)
    boxes = torch.from_numpy(corners.reshape(4, 16, 4))  # x0, y0, x1, y1 with x0 <= x1 and y0 <= y1
    labels = torch.from_numpy(rng.integers(0, LABELS, 4))
    return model(input_ids=ids, bbox=boxes, pixel_values=images(rng, size=32), labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
