"""xLSTM (Hugging Face transformers, tiny configuration): mLSTM blocks run by the library's native
chunkwise kernel in training mode: exponential input gates and log-sigmoid forget gates soft-capped by
tanh, cumulative log-gate sums and a running max stabilising the matrix memory across chunks, a
multi-head layer norm over the cell outputs, logits soft-capped by tanh. (Named ``xlstm_lm`` so that
the script does not shadow the optional ``xlstm`` package, whose presence the library probes by
import.)"""

from common import causal_lm_loss, run
from transformers import xLSTMConfig, xLSTMForCausalLM

VOCAB = 96


def build() -> xLSTMForCausalLM:
    config = xLSTMConfig(
        vocab_size=VOCAB, hidden_size=32, embedding_dim=32, num_hidden_layers=2, num_blocks=2, num_heads=2,
        mode="train", chunk_size=8, chunkwise_kernel="chunkwise--native_autograd", return_last_states=True,
        autocast_kernel_dtype="float32", ffn_round_up_to_multiple_of=16, max_inference_chunksize=16,
        pad_token_id=1, use_cache=False,
    )  # fmt: skip
    return xLSTMForCausalLM(config)


if __name__ == "__main__":
    run(build, causal_lm_loss(VOCAB))
