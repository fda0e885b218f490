#!/usr/bin/env python3
"""Reference outputs of the real SmolLM2-135M-Instruct, as transformers loads its GGUF file, for
tests/lib/models/smollm2_live_test.cpp.

Usage: smollm2_reference.py GGUF_FILE OUT_DIR THREADS

THREADS: torch's intra-op threads, the test's own count: on SmolLM2 transformers' logits move by up to
6e-5 between 1 and 2 threads (the products split their sums otherwise), more than the parity asked.

transformers dequantises the file (through the `gguf` package) into LlamaForCausalLM and undoes
llama.cpp's q/k row permutation. Writes OUT_DIR/io.safetensors:

  input_ids, attention_mask   three prompts (a chat-formatted SST-2 question, plain text, a short one),
                              tokenized by transformers' GGUF tokenizer, right-padded with the pad id
  left.input_ids, ...mask     the same prompts padded on the left
  position_ids, left.position_ids   each real token's index among its row's real tokens
  logits, left.logits         (B, T, 49152) float32, eval mode
  greedy                      (1, 8) the first prompt's next 8 tokens by greedy decoding (argmax of a full
                              forward pass per step: generate() does not run on torch 1.13)

and OUT_DIR/weights.json: "sha256": {transformers name: sha256 of the float32 tensor's bytes} for every
tensor of the model's state dict (the tied lm_head left out), so the suite's own dequantisation and
unpermutation can be compared bit for bit without writing 540 MB; "texts" and "ids": the three prompts and
transformers' ids of each (without special tokens).
"""
import hashlib
import json
import os
import sys

import torch
import transformers

from oracle_common import save_tensors

PROMPTS = [
    None,  # the chat prompt, built below with the tokenizer's template
    "The capital of France is",
    "Hi",
]


def padded(rows, pad, left):
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad, dtype=torch.int64)
    mask = torch.zeros_like(ids)
    for i, row in enumerate(rows):
        start = width - len(row) if left else 0
        ids[i, start:start + len(row)] = torch.tensor(row)
        mask[i, start:start + len(row)] = 1
    return ids, mask, (mask.cumsum(-1) - 1).clamp(min=0)


def main():
    path, out_dir, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
    torch.set_num_threads(threads)
    directory, name = os.path.split(path)
    tokenizer = transformers.AutoTokenizer.from_pretrained(directory, gguf_file=name)
    model = transformers.AutoModelForCausalLM.from_pretrained(directory, gguf_file=name, torch_dtype=torch.float32)
    model.eval()
    chat = tokenizer.apply_chat_template(
        [{"role": "user", "content": "Is this movie review positive or negative? \"A gorgeous, witty, "
                                     "seductive movie.\" Answer with one word."}],
        tokenize=False, add_generation_prompt=True)
    texts = [chat] + PROMPTS[1:]
    rows = [tokenizer(text, add_special_tokens=False)["input_ids"] for text in texts]
    pad = model.config.pad_token_id
    tensors = {}
    with torch.no_grad():
        for prefix, left in (("", False), ("left.", True)):
            ids, mask, positions = padded(rows, pad, left)
            tensors.update({prefix + "input_ids": ids, prefix + "attention_mask": mask,
                            prefix + "position_ids": positions})
            tensors[prefix + "logits"] = model(input_ids=ids, attention_mask=mask, position_ids=positions).logits
        sequence = torch.tensor([rows[0]])
        generated = []
        for _ in range(8):
            token = model(input_ids=sequence).logits[0, -1].argmax()
            generated.append(int(token))
            sequence = torch.cat([sequence, token.view(1, 1)], dim=1)
        tensors["greedy"] = torch.tensor([generated])
    os.makedirs(out_dir, exist_ok=True)
    save_tensors(os.path.join(out_dir, "io.safetensors"), tensors)
    hashes = {k: hashlib.sha256(v.detach().contiguous().numpy().tobytes()).hexdigest()
              for k, v in model.state_dict().items() if k != "lm_head.weight"}
    with open(os.path.join(out_dir, "weights.json"), "w") as f:
        json.dump({"sha256": hashes, "greedy_text": tokenizer.decode(generated), "texts": texts, "ids": rows}, f,
                  indent=1)
    print("greedy:", repr(tokenizer.decode(generated)))


if __name__ == "__main__":
    main()
