"""ViLT (Hugging Face transformers, tiny configuration): text tokens and image patches in one
transformer without a vision backbone; each image's position embeddings resized bilinearly (corners
aligned) to its own valid patch grid and zero-padded (a pixel mask of another size per image, reduced to
the patch grid by nearest interpolation), patches gathered by their mask (``nonzero``), a smaller image's
padded with masked-out patches drawn by ``multinomial``, modality-type embeddings, a pooled
question-answering head under a scaled binary cross-entropy."""

import numpy as np
import torch
from common import images, run, tokens
from transformers import ViltConfig, ViltForQuestionAnswering

VOCAB, LABELS = 96, 5


def build() -> ViltForQuestionAnswering:
    config = ViltConfig(
        vocab_size=VOCAB, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=16, image_size=32, patch_size=8, num_labels=LABELS,
    )  # fmt: skip
    return ViltForQuestionAnswering(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The loss of 4 questions of 12 random tokens about 4 random 32 x 32 images whose valid parts are
    32 x 32, 24 x 32, 32 x 16 and 16 x 24 pixels, against random soft scores of 5 answers."""
    mask = np.zeros((4, 32, 32), np.int64)
    for i, (h, w) in enumerate([(32, 32), (24, 32), (32, 16), (16, 24)]):
        mask[i, :h, :w] = 1
    scores = torch.from_numpy(rng.uniform(0, 1, (4, LABELS)).astype(np.float32))
    return model(
        input_ids=tokens(rng, VOCAB, length=12), pixel_values=images(rng, size=32),
        pixel_mask=torch.from_numpy(mask), labels=scores,
    ).loss  # fmt: skip


if __name__ == "__main__":
    run(build, loss_of)
