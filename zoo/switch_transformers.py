"""SwitchTransformers (Hugging Face transformers, tiny configuration): a T5-style encoder-decoder whose
sparse layers route each token to one of 4 experts: the router's input scaled by jitter noise drawn with
``uniform_`` in the forward pass, a softmax router with top-1 choice, an expert capacity enforced by a
cumulative sum over the one-hot choices, dropped tokens passed through, router z-loss and load-balancing
loss added to the loss."""

from common import run, seq2seq_lm_loss
from transformers import SwitchTransformersConfig, SwitchTransformersForConditionalGeneration

VOCAB = 96


def build() -> SwitchTransformersForConditionalGeneration:
    config = SwitchTransformersConfig(
        vocab_size=VOCAB, d_model=32, d_kv=16, d_ff=64, num_layers=2, num_decoder_layers=2,
        num_sparse_encoder_layers=1, num_sparse_decoder_layers=1, num_heads=2, num_experts=4,
        expert_capacity=12, router_jitter_noise=0.01, relative_attention_num_buckets=8,
        relative_attention_max_distance=16, decoder_start_token_id=0,
    )  # fmt: skip
    return SwitchTransformersForConditionalGeneration(config)


if __name__ == "__main__":
    run(build, seq2seq_lm_loss(VOCAB))
