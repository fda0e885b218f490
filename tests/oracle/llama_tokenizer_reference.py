"""The Llama-family tokenizer oracle: transformers loading a GGUF file's tokenizer, run on texts and
conversations the C++ parity test sends.

Run by tests/lib/tokenizers/llama_bpe_tokenizer_live_test.cpp with the oracle venv's interpreter
(.venv/bin/python, `make oracle-env`; transformers 4.47.1 with gguf installed):

    llama_tokenizer_reference.py REQUEST.json RESPONSE.json

REQUEST.json:
    {"gguf": "<dir>/<file>.gguf",
     "items": [{"text": "...", "pair": "..." | null, "max_length": N | null}, ...],
     "conversations": [{"messages": [{"role": ..., "content": ...}, ...], "add_generation_prompt": bool}, ...]}

RESPONSE.json:
    {"versions": {"transformers": ..., "tokenizers": ...},
     "vocabulary": {"tokens": [...], "merges": ["a b", ...], "token_types": [...], "bos_id": N, "eos_id": N,
                    "unk_id": N | null, "pad_id": N | null, "add_bos": bool, "add_eos": bool,
                    "chat_template": "..."},
     "results": {"gguf": [one row per item], "isolated_numbers": [one row per item]},
     "chat": [{"text": "<rendered prompt>", "ids": [...]}, ...]}

"vocabulary" is the tokenizer metadata as transformers reads it from the file (load_gguf_checkpoint),
with the BOS/EOS framing flags of the tokenizer it builds: what the C++ tokenizer is built from.
"gguf" rows come from AutoTokenizer.from_pretrained(dir, gguf_file=...) as it is; "isolated_numbers" rows
from the same tokenizer with SmolLM2's original pre-tokenizer (Digits(individual_digits=True), then
ByteLevel) in place of the GPT-2 one the GGUF converter sets. A row is tokenizer(text, pair,
return_offsets_mapping=True) as tokenizer_reference.py writes it: "ids", "offsets" (code point spans),
"sequence" (encoding.sequence_ids(), -1 where None), as strings of space-separated integers, "type_ids"
null (this tokenizer returns none); "decoded" and "decoded_skip" are decode(ids) with
clean_up_tokenization_spaces=False, keeping and skipping the special tokens. "chat" holds
apply_chat_template(messages, add_generation_prompt=...) per conversation, with tokenize=False ("text")
and tokenize=True ("ids").
"""
import copy
import json
import os
import sys

import tokenizers
import transformers
from tokenizers import pre_tokenizers
from transformers import AutoTokenizer, tokenization_utils_fast
from transformers.modeling_gguf_pytorch_utils import load_gguf_checkpoint

import tokenizer_reference


def encode_all(tokenizer, items):
    """tokenizer_reference.py's rows (ids, offsets, sequence; no token types here), with the decodes."""
    rows = tokenizer_reference.encode_all(tokenizer, items)
    for row in rows:
        ids = [int(i) for i in row["ids"].split()]
        row["decoded"] = tokenizer.decode(ids, clean_up_tokenization_spaces=False)
        row["decoded_skip"] = tokenizer.decode(ids, skip_special_tokens=True, clean_up_tokenization_spaces=False)
    return rows


def load_gguf_tokenizer(path):
    """AutoTokenizer.from_pretrained(dir, gguf_file=...) and the file's metadata as transformers read it
    on the way (load_gguf_checkpoint, caught rather than read a second time: it takes seconds)."""
    read = []

    def reading(*args, **kwargs):
        read.append(load_gguf_checkpoint(*args, **kwargs))
        return read[-1]

    tokenization_utils_fast.load_gguf_checkpoint = reading
    try:
        tokenizer = AutoTokenizer.from_pretrained(os.path.dirname(path), gguf_file=os.path.basename(path))
    finally:
        tokenization_utils_fast.load_gguf_checkpoint = load_gguf_checkpoint
    assert len(read) == 1, "transformers read the GGUF metadata %d times" % len(read)
    return tokenizer, read[0]


def vocabulary(tokenizer, metadata):
    """What the C++ tokenizer is built from: the tokenizer metadata and the framing flags."""
    meta = metadata["tokenizer"]
    return {
        "tokens": meta["tokens"],
        "merges": meta["merges"],
        "token_types": meta["token_type"],
        "bos_id": meta.get("bos_token_id"),
        "eos_id": meta.get("eos_token_id"),
        "unk_id": meta.get("unk_token_id"),
        "pad_id": meta.get("pad_token_id"),
        "add_bos": tokenizer.add_bos_token,
        "add_eos": tokenizer.add_eos_token,
        "chat_template": metadata["tokenizer_config"]["chat_template"],
    }


def with_isolated_numbers(gguf_tokenizer):
    """The GGUF tokenizer with the pre-tokenizer of SmolLM2's original tokenizer.json."""
    tokenizer = copy.deepcopy(gguf_tokenizer)
    tokenizer.backend_tokenizer.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Digits(individual_digits=True),
        pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=True, use_regex=True),
    ])
    return tokenizer


def chat(tokenizer, conversation):
    def render(tokenize):
        return tokenizer.apply_chat_template(conversation["messages"], tokenize=tokenize,
                                             add_generation_prompt=conversation["add_generation_prompt"])
    return {"text": render(False), "ids": render(True)}


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        request = json.load(f)
    tokenizer, metadata = load_gguf_tokenizer(request["gguf"])
    response = {
        "versions": {"transformers": transformers.__version__, "tokenizers": tokenizers.__version__},
        "vocabulary": vocabulary(tokenizer, metadata),
        "results": {
            "gguf": encode_all(tokenizer, request["items"]),
            "isolated_numbers": encode_all(with_isolated_numbers(tokenizer), request["items"]),
        },
        "chat": [chat(tokenizer, c) for c in request["conversations"]],
    }
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(response, f, ensure_ascii=False, separators=(",", ":"))


if __name__ == "__main__":
    main()
