"""TAPAS (Hugging Face transformers, tiny configuration): a BERT over a question and a flattened table,
seven token-type embeddings (segment, column, row, previous answer, column rank, inverse rank, numeric
relation), and the weakly supervised question-answering losses of WikiTableQuestions: segmented means
over the table's cells and columns (scatter_reduce on the flattened cell index), a column then cell
selection loss, an aggregation loss and a Huber loss on the answer computed from the selected cells'
numeric values (NaN outside the table, masked with isnan)."""

import numpy as np
import torch
from common import run
from transformers import TapasConfig, TapasForQuestionAnswering

VOCAB, QUESTION, COLUMNS, ROWS = 96, 4, 4, 3
LENGTH = QUESTION + COLUMNS * (ROWS + 1)  # the question, then the header row and ROWS rows


def build() -> TapasForQuestionAnswering:
    config = TapasConfig(
        vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
        max_position_embeddings=64, type_vocab_sizes=[3, 8, 8, 2, 8, 8, 10], num_aggregation_labels=4,
        use_answer_as_supervision=True, answer_loss_cutoff=0.664694, cell_selection_preference=0.207951,
        huber_loss_delta=0.121194, init_cell_selection_weights_to_zero=True, select_one_column=True,
        allow_empty_column_selection=False, temperature=0.0352513,
    )  # fmt: skip
    return TapasForQuestionAnswering(config)


def _token_types(rng: np.random.Generator, batch: int) -> np.ndarray:
    """(batch, LENGTH, 7): segment 1, column 1.. and row 0.. on the table's tokens, the column ranks
    of each body row a random permutation (inverse ranks reversed), random numeric relations."""
    types = np.zeros((batch, LENGTH, 7), np.int64)
    table = np.arange(COLUMNS * (ROWS + 1))
    types[:, QUESTION:, 0] = 1
    types[:, QUESTION:, 1] = table % COLUMNS + 1
    types[:, QUESTION:, 2] = table // COLUMNS
    for b in range(batch):
        ranks = np.stack([rng.permutation(ROWS) + 1 for _ in range(COLUMNS)], axis=1)  # (ROWS, COLUMNS)
        types[b, QUESTION + COLUMNS :, 4] = ranks.reshape(-1)
        types[b, QUESTION + COLUMNS :, 5] = (ROWS + 1 - ranks).reshape(-1)
        types[b, QUESTION + COLUMNS :, 6] = rng.integers(0, 10, COLUMNS * ROWS)
    return types


def loss_of(model: torch.nn.Module, rng: np.random.Generator) -> torch.Tensor:
    """The weakly supervised loss of 4 random questions over random 4-by-3 tables: the answer cells
    one or two cells of one random column, the answer a random float, the body's numeric values random."""
    batch = 4
    values = np.full((batch, LENGTH), np.nan, np.float32)
    values[:, QUESTION + COLUMNS :] = rng.uniform(-2.0, 2.0, (batch, COLUMNS * ROWS)).astype(np.float32)
    labels = np.zeros((batch, LENGTH), np.int64)
    for b, column in enumerate(rng.integers(0, COLUMNS, batch)):
        rows = rng.choice(ROWS, int(rng.integers(1, 3)), replace=False)
        labels[b, QUESTION + COLUMNS + rows * COLUMNS + column] = 1
    return model(
        input_ids=torch.from_numpy(rng.integers(0, VOCAB, (batch, LENGTH))),
        attention_mask=torch.ones(batch, LENGTH, dtype=torch.long),
        token_type_ids=torch.from_numpy(_token_types(rng, batch)),
        labels=torch.from_numpy(labels),
        numeric_values=torch.from_numpy(values),
        numeric_values_scale=torch.ones(batch, LENGTH),
        float_answer=torch.from_numpy(rng.uniform(-2.0, 2.0, batch).astype(np.float32)),
    ).loss


if __name__ == "__main__":
    run(build, loss_of)
