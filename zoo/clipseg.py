"""CLIPSeg (Hugging Face transformers, tiny configuration): text-conditioned segmentation: CLIP's text
and vision towers (``quick_gelu``), the text embedding conditioning the decoder by FiLM (a learned
multiply and add of the reduced activations), a small transformer decoder over activations taken from
three vision layers, then the patch grid upsampled by two transposed convolutions with ReLU between
(``use_complex_transposed_convolution``); the loss a binary cross-entropy with logits per pixel."""

import numpy as np
import torch
from common import images, run
from transformers import CLIPSegConfig, CLIPSegForImageSegmentation

VOCAB = 96


def build() -> CLIPSegForImageSegmentation:
    text = {"vocab_size": VOCAB, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 2,
            "num_attention_heads": 2, "max_position_embeddings": 16, "bos_token_id": 0, "pad_token_id": 1,
            "eos_token_id": VOCAB - 1}  # fmt: skip
    vision = {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 3, "num_attention_heads": 2,
              "image_size": 32, "patch_size": 8}  # fmt: skip
    config = CLIPSegConfig(
        text_config=text, vision_config=vision, projection_dim=32, extract_layers=[0, 1, 2], reduce_dim=16,
        decoder_num_attention_heads=2, decoder_intermediate_size=32, use_complex_transposed_convolution=True,
    )  # fmt: skip
    return CLIPSegForImageSegmentation(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 random 32 x 32 images, 2 random prompts of 8 tokens ending in the end token; the model's
    binary cross-entropy of the 16 x 16 logits (the 4 x 4 patch grid upsampled 4 times) against random 0/1 masks."""
    ids = np.concatenate([rng.integers(0, VOCAB - 1, (2, 7)), np.full((2, 1), VOCAB - 1)], 1)
    labels = torch.from_numpy(rng.integers(0, 2, (2, 16, 16)).astype(np.float32))
    return model(input_ids=torch.from_numpy(ids), pixel_values=images(rng, batch=2), labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
