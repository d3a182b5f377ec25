"""Florence-2 (Hugging Face transformers, tiny configuration): a DaViT image encoder, each stage a
convolutional patch embedding then blocks of a depthwise-convolution position encoding, window attention
over spatial tokens and channel-group attention (the attention taken over channels, the channels' products
scaled by the inverse square root of the token count), with stochastic depth in training (``rand`` per
image); the image features given learned row and column embeddings and a sinusoidal temporal embedding,
pooled over space and time, projected and layer-normed into a BART encoder-decoder's image token positions;
trained on the decoder's cross entropy."""

import numpy as np
import torch
from common import images, run, tokens
from transformers import Florence2Config, Florence2ForConditionalGeneration

VOCAB, IMAGE, SIZE = 96, 95, 32
IMAGE_TOKENS = (SIZE // 16) ** 2 + 1  # the 2 x 2 feature grid and its pooled token


def build() -> Florence2ForConditionalGeneration:
    vision = {"depths": [1, 1, 1], "patch_size": [7, 3, 3], "patch_stride": [4, 2, 2], "patch_padding": [3, 1, 1],
              "patch_prenorm": [False, True, True], "embed_dim": [16, 32, 64], "num_heads": [1, 2, 4],
              "num_groups": [1, 2, 4], "window_size": 2, "drop_path_rate": 0.1, "projection_dim": 32,
              "max_temporal_embeddings": 4, "max_position_embeddings": 4}  # fmt: skip
    text = {"vocab_size": VOCAB, "d_model": 32, "encoder_layers": 1, "decoder_layers": 1, "encoder_attention_heads": 2,
            "decoder_attention_heads": 2, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64,
            "max_position_embeddings": 32}  # fmt: skip
    config = Florence2Config(vision_config=vision, text_config=text, image_token_id=IMAGE)
    return Florence2ForConditionalGeneration(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 random 32 x 32 images, each before a prompt of 8 random tokens, and 8 random target tokens."""
    ids = torch.cat((torch.full((2, IMAGE_TOKENS), IMAGE), tokens(rng, IMAGE, 2, 8)), dim=1)
    out = model(input_ids=ids, pixel_values=images(rng, batch=2, size=SIZE), labels=tokens(rng, IMAGE, 2, 8))
    return out.loss


if __name__ == "__main__":
    run(build, loss_of)
