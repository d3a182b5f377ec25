"""OLMo Hybrid (Hugging Face transformers, tiny configuration): three gated DeltaNet layers and a full
attention layer. The linear layers mix queries, keys and values by a depthwise causal ``conv1d`` with SiLU,
L2-normalise queries and keys by ``rsqrt`` of their sums of squares, write with ``beta = 2 * sigmoid``
(negative eigenvalues allowed) and decay by ``-exp(A_log) * softplus``; the chunked delta rule runs over
chunks of 64 (72 tokens: a full chunk and one padded by ``pad``), its UT system solved by
``linalg.solve_triangular`` (lower, unit diagonal) and the pairwise decays masked to ``-inf`` before
``exp``; the output gated by an RMSNorm times SiLU of a gate projection. The attention layer's queries and
keys are RMS-normed over all heads together, OLMo 2's norms after each sublayer."""

from common import causal_lm_loss, run
from transformers import OlmoHybridConfig, OlmoHybridForCausalLM

VOCAB, LENGTH = 96, 72


def build() -> OlmoHybridForCausalLM:
    config = OlmoHybridConfig(
        vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=4, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=128, pad_token_id=0, eos_token_id=1,
    )  # fmt: skip
    return OlmoHybridForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB, length=LENGTH))
