"""Shared pieces of the oracle scripts (tests/oracle/*.py), which run in the project's venv (`make
oracle-env`: Debian's torch 1.13 with the pinned transformers and peft) and write reference data for
the live parity tests (tests/**/*_live_test.cpp) into a temporary directory.

- Tiny tokenizers written from scratch: a byte-level BPE (RoBERTa's layout: vocab.json, merges.txt) and
  a WordPiece vocabulary (BERT's vocab.txt), so a saved random model is a complete Hugging Face
  checkpoint directory that the suite's loaders accept, with no downloaded files.
- Re-drawing every parameter of a model with a non-trivial distribution, so that biases and LayerNorm
  parameters change the outputs (transformers initialises them to 0 and 1).
- Writing tensors with safetensors, and the right-padded text batches the tests feed both sides.
"""
import json
import os

import torch
from safetensors.torch import save_file

# Byte-level BPE: RoBERTa's special tokens, the 256 byte symbols of GPT-2's byte-to-unicode table, and
# a few merges so that some words are one token.
BPE_SPECIALS = ["<s>", "<pad>", "</s>", "<unk>"]
BPE_MERGES = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("i", "n"), ("Ġ", "a")]

# WordPiece: BERT's special tokens and a small vocabulary of whole words and continuation pieces.
WORDPIECE_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + (
    "the a an of to in is was it that on for with as by at from cat dog sat mat ran fast slow big small "
    "red blue green house tree river ##s ##ed ##ing ##ly ##er".split())


def byte_symbols():
    """GPT-2's table from bytes to printable unicode symbols (as transformers' bytes_to_unicode)."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(
        range(ord("®"), ord("ÿ") + 1))
    symbols = printable[:]
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            symbols.append(256 + extra)
            extra += 1
    return [chr(s) for _, s in sorted(zip(printable, symbols))]


def write_byte_level_bpe(directory):
    """Writes vocab.json and merges.txt of a tiny byte-level BPE into `directory`, and RoBERTa's
    tokenizer files through transformers (so from_pretrained and the suite both read them). Returns the
    vocabulary size; ids: <s> 0, <pad> 1, </s> 2, <unk> 3, then bytes, merges, <mask> last."""
    from transformers import RobertaTokenizer

    tokens = BPE_SPECIALS + byte_symbols() + ["".join(pair) for pair in BPE_MERGES] + ["<mask>"]
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump({token: i for i, token in enumerate(tokens)}, f, ensure_ascii=False)
    with open(os.path.join(directory, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in BPE_MERGES))
    tokenizer = RobertaTokenizer(os.path.join(directory, "vocab.json"), os.path.join(directory, "merges.txt"))
    tokenizer.save_pretrained(directory)
    return len(tokens)


def write_wordpiece(directory):
    """Writes BERT's vocab.txt of a tiny WordPiece vocabulary into `directory` through transformers'
    BertTokenizer. Returns the vocabulary size; ids: [PAD] 0, [UNK] 1, [CLS] 2, [SEP] 3, [MASK] 4."""
    from transformers import BertTokenizer

    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, "vocab.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(token + "\n" for token in WORDPIECE_VOCAB))
    BertTokenizer(path).save_pretrained(directory)
    return len(WORDPIECE_VOCAB)


@torch.no_grad()
def redraw_parameters(model, generator):
    """Every parameter of `model` drawn anew: LayerNorm weights 1 + N(0, 0.1²), biases N(0, 0.1²), every
    other tensor (weights, embeddings, class token, position tables) N(0, 0.15²)."""
    norms = {id(m.weight) for m in model.modules() if isinstance(m, torch.nn.LayerNorm) and m.weight is not None}
    for name, parameter in model.named_parameters():
        noise = torch.randn(parameter.shape, generator=generator, dtype=torch.float64).to(parameter.dtype)
        if id(parameter) in norms:
            parameter.copy_(1 + 0.1 * noise)
        elif name.endswith("bias"):
            parameter.copy_(0.1 * noise)
        else:
            parameter.copy_(0.15 * noise)


def padded_rows(lengths, vocab_low, vocab_high, generator, first, last, pad, left_rows=()):
    """Padded rows of random ids: row i has lengths[i] tokens, `first` ... `last` around ids drawn from
    [vocab_low, vocab_high), and `pad` after them (before them for the rows in `left_rows`). Returns
    input_ids, attention_mask (B, max length) int64 and each row's first real position."""
    width = max(lengths)
    ids = torch.full((len(lengths), width), pad, dtype=torch.int64)
    mask = torch.zeros((len(lengths), width), dtype=torch.int64)
    starts = []
    for row, length in enumerate(lengths):
        start = width - length if row in left_rows else 0
        ids[row, start:start + length] = torch.randint(vocab_low, vocab_high, (length,), generator=generator)
        ids[row, start], ids[row, start + length - 1] = first, last
        mask[row, start:start + length] = 1
        starts.append(start)
    return ids, mask, starts


def save_tensors(path, tensors):
    """Writes `tensors` (name -> tensor) as safetensors, each an own contiguous copy (safetensors refuses shared memory)."""
    save_file({name: t.detach().clone().contiguous() for name, t in tensors.items()}, path)


def write_json(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=1)
