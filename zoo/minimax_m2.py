"""MiniMax-M2 (Hugging Face transformers, tiny configuration): a mixture-of-experts decoder routed by
``sigmoid`` scores in float32, the experts chosen by ``topk`` (unsorted) of the scores plus a correction bias
and weighted by the chosen scores ``gather``ed and divided by their sum; queries and keys RMS-normed over all
heads together before partial rotary positions (half of each head); the load-balancing auxiliary loss over a
padded batch from a ``softmax`` of the same router logits, its per-expert counts ``scatter_add_``ed from the
attention mask repeated per chosen expert."""

import torch
from common import run, tokens
from transformers import MiniMaxM2Config, MiniMaxM2ForCausalLM

VOCAB = 96


def build() -> MiniMaxM2ForCausalLM:
    config = MiniMaxM2Config(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=32, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, head_dim=16, max_position_embeddings=32, num_local_experts=8, num_experts_per_tok=2,
        output_router_logits=True, router_aux_loss_coef=0.01, bos_token_id=1, eos_token_id=2,
        rope_parameters={"rope_type": "default", "rope_theta": 10000.0, "partial_rotary_factor": 0.5},
    )  # fmt: skip
    return MiniMaxM2ForCausalLM(config)


def loss_of(model, rng):
    """4 sequences of 16 tokens, the last 4 of each padding under the attention mask (labels -100)."""
    ids = tokens(rng, VOCAB)
    mask = torch.ones_like(ids)
    mask[:, 12:] = 0
    labels = ids.clone()
    labels[:, 12:] = -100
    return model(input_ids=ids, attention_mask=mask, labels=labels).loss


if __name__ == "__main__":
    run(build, loss_of)
