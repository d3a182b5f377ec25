"""PI0 (Hugging Face transformers, tiny configuration): flow matching of robot actions over PaliGemma. The
prefix (SigLIP patches of two camera slots, the second sample's second slot padding under the pixel mask,
gathered into the image-token positions of the text tokens by cumsum ranks, argmax and gather, torch.where)
runs once through the vision-language model, whose key/value cache is kept with its gradients (its last
hidden state is unused); a Gemma action expert of the same depth attends to that cache under a block-wise
bidirectional mask (prefix and state token, then the action chunk), the chunk embedded with a sinusoidal
flow-matching time (sin and cos of a log-spaced frequency table) through a SiLU MLP. Time and noise are
drawn by NumPy (the library's own Beta draw is left out) and the loss is the mean squared error of the
predicted velocity against noise - actions."""

import numpy as np
import torch
from common import run
from transformers import PI0Config, PI0ForConditionalGeneration

BATCH, CAMERAS, TEXT, CHUNK, STATE, ACTION, VOCAB = 2, 2, 6, 8, 6, 6, 64
IMAGE, PATCH = 16, 4
IMAGE_TOKEN = VOCAB  # PaliGemma's image token, one past the text vocabulary


def build() -> PI0ForConditionalGeneration:
    text = {
        "model_type": "gemma", "hidden_size": 32, "num_hidden_layers": 2, "intermediate_size": 64,
        "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 16, "vocab_size": VOCAB + 1,
    }  # fmt: skip
    vision = {
        "model_type": "siglip_vision_model", "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
        "num_attention_heads": 2, "patch_size": PATCH, "image_size": IMAGE, "vision_use_head": False,
    }  # fmt: skip
    vlm = {"text_config": text, "vision_config": vision, "projection_dim": 32, "image_token_id": IMAGE_TOKEN}
    dit = {
        "model_type": "gemma", "hidden_size": 24, "num_hidden_layers": 2, "intermediate_size": 48,
        "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 16,
    }  # fmt: skip
    config = PI0Config(
        vlm_config=vlm, dit_config=dit, chunk_size=CHUNK, max_state_dim=STATE, max_action_dim=ACTION,
    )  # fmt: skip
    return PI0ForConditionalGeneration(config)


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """2 samples of 2 camera slots (the second sample's second slot padding), 16 image tokens per camera
    before 6 text tokens; a random state, action chunk, noise and flow time: the velocity's mean squared error."""
    tokens_per_image = (IMAGE // PATCH) ** 2
    pixels = torch.from_numpy(rng.standard_normal((BATCH, CAMERAS, 3, IMAGE, IMAGE)).astype(np.float32))
    cameras = torch.tensor([[True, True], [True, False]])
    ids = rng.integers(0, VOCAB, (BATCH, CAMERAS * tokens_per_image + TEXT))
    ids[0, : CAMERAS * tokens_per_image] = IMAGE_TOKEN
    ids[1, :tokens_per_image] = IMAGE_TOKEN
    ids[1, tokens_per_image : CAMERAS * tokens_per_image] = 0
    mask = np.ones(ids.shape, np.int64)
    mask[1, tokens_per_image : CAMERAS * tokens_per_image] = 0
    return model(
        state=torch.from_numpy(rng.standard_normal((BATCH, STATE)).astype(np.float32)),
        noise=torch.from_numpy(rng.standard_normal((BATCH, CHUNK, ACTION)).astype(np.float32)),
        timestep=torch.from_numpy(rng.uniform(0.001, 1.0, BATCH).astype(np.float32)),
        input_ids=torch.from_numpy(ids),
        pixel_values=pixels,
        pixel_attention_mask=cameras,
        attention_mask=torch.from_numpy(mask),
        actions=torch.from_numpy(rng.standard_normal((BATCH, CHUNK, ACTION)).astype(np.float32)),
    ).loss


if __name__ == "__main__":
    run(build, loss_of)
