"""Emu3's video VQ-VAE (Hugging Face transformers, tiny configuration): a 2-D encoder per frame (group
norm, SiLU, stride-2 downsampling after asymmetric zero padding), then 3-D convolutions over time
(causal padding of two frames, a temporal stride-2 kernel of 4 frames) and 3-D residual blocks with
``BatchNorm3d`` in training mode; a codebook lookup by squared distances and ``argmin``; the decoder's
temporal residual blocks, temporal upsampling by nearest interpolation of a (batch, C*H*W, frames) view,
spatial norms (group norm scaled and shifted by 1 x 1 convolutions of the nearest-resized codes) and
nearest 2 x upsampling. Trained on the commitment loss of the encoder's latents and the reconstruction of
the video."""

import numpy as np
import torch
from common import run
from transformers import Emu3VQVAE, Emu3VQVAEConfig

FRAMES, SIZE = 4, 16


def build() -> Emu3VQVAE:
    config = Emu3VQVAEConfig(
        codebook_size=32, embed_dim=4, latent_channels=4, temporal_downsample_factor=2, base_channels=32,
        channel_multiplier=[1, 2], num_res_blocks=1, attn_resolutions=[1], hidden_size=64, num_attention_heads=1,
    )  # fmt: skip
    return Emu3VQVAE(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 random clips of 4 frames of 16 x 16: the encoder's latents against their nearest codes (the
    commitment loss) plus the squared error of the video decoded from the codes."""
    video = torch.from_numpy(rng.standard_normal((2, FRAMES, 3, SIZE, SIZE)).astype(np.float32))
    latents = model.encoder(video).permute(0, 2, 1, 3, 4)
    latents = model.quant_conv(latents).permute(0, 2, 1, 3, 4)
    codes = model.quantize(latents)
    nearest = model.quantize.embedding(codes).permute(0, 1, 4, 2, 3)
    decoded = model.decode(codes)
    return ((latents - nearest.detach()) ** 2).mean() + ((decoded - video) ** 2).mean()


if __name__ == "__main__":
    run(build, loss_of)
