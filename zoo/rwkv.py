"""RWKV (Hugging Face transformers, tiny configuration): time mixing by token shift and the WKV recurrence,
run step by step in PyTorch on the CPU (exp, maximum), channel mixing with a squared ReLU."""

from common import causal_lm_loss, run
from transformers import RwkvConfig, RwkvForCausalLM

VOCAB = 96


def build() -> RwkvForCausalLM:
    config = RwkvConfig(
        vocab_size=VOCAB, context_length=32, hidden_size=32, num_hidden_layers=2, attention_hidden_size=32,
        intermediate_size=64,
    )  # fmt: skip
    return RwkvForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
