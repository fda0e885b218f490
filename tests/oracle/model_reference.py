#!/usr/bin/env python3
"""Reference outputs of transformers' own models for tests/lib/models/model_parity_live_test.cpp.

Usage: model_reference.py OUT_DIR FAMILY [FAMILY ...]     FAMILY: roberta, deberta-v2, vit, bert

For every case (a family with one task head) it builds a small random configuration, re-draws every
parameter (oracle_common.redraw_parameters), saves the model with save_pretrained(safe_serialization=True)
and a tiny tokenizer into OUT_DIR/<case>/, and writes OUT_DIR/<case>/io.safetensors:

  inputs        input_ids, attention_mask (rows of different lengths, right-padded; one row left-padded
                where the family pools a real first token either way), token_type_ids
                (BERT's sentence pairs), or pixel_values (ViT)
  labels        labels (class ids, or float scores for one label), or start_positions / end_positions
  outputs       logits ((B, num_labels); (B, T, 2) start and end for question answering), loss,
                hidden_states.<i> (i = 0 … L: the embeddings, then every layer), attentions.<i>,
                last_hidden_state (ViT: after its final LayerNorm), in float32
  float64       logits_f64 and last_hidden_state_f64: the same weights run after model.double()
  single rows   single.<b>.input_ids (row b without its padding; single.<b>.token_type_ids for BERT) and
                single.<b>.logits (text models)
  left padding  left.input_ids, left.attention_mask (left.token_type_ids): other rows of the same
                lengths, every one padded on the left, and left.last_hidden_state (text models)

and OUT_DIR/cases.json: [{name, model_type, head ("sequence_classification" | "span"), num_labels,
layers}], plus the transformers version. Everything runs in eval mode (dropout off).
"""
import os
import sys

import torch
import transformers

from oracle_common import padded_rows, redraw_parameters, save_tensors, write_byte_level_bpe, write_json, write_wordpiece

# Text rows: every length differs, the longest beyond half of DeBERTa's position buckets (8), so the
# log-bucket branch of its relative positions is exercised.
TEXT_LENGTHS = [24, 17, 9, 3]
SMALL = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)


def roberta_config(vocab_size):
    return transformers.RobertaConfig(vocab_size=vocab_size, max_position_embeddings=40, type_vocab_size=1,
                                      layer_norm_eps=1e-5, pad_token_id=1, bos_token_id=0, eos_token_id=2, **SMALL)


def deberta_v2_config(vocab_size):
    # DeBERTaV3's choices: relative attention over log buckets, shared position keys, p2c and c2p,
    # a LayerNorm on the relative embeddings, no absolute positions and no token types.
    return transformers.DebertaV2Config(vocab_size=vocab_size, max_position_embeddings=64, relative_attention=True,
                                        position_buckets=8, max_relative_positions=-1, norm_rel_ebd="layer_norm",
                                        share_att_key=True, pos_att_type=["p2c", "c2p"], position_biased_input=False,
                                        type_vocab_size=0, layer_norm_eps=1e-7, pad_token_id=1, pooler_hidden_size=32,
                                        pooler_hidden_act="gelu", pooler_dropout=0, **SMALL)


def vit_config(_):
    return transformers.ViTConfig(image_size=32, patch_size=8, num_channels=3, qkv_bias=True, **SMALL)


def bert_config(vocab_size):
    return transformers.BertConfig(vocab_size=vocab_size, max_position_embeddings=40, type_vocab_size=2,
                                   pad_token_id=0, **SMALL)


def text_inputs(generator, vocab_size, first, last, pad, left_rows):
    ids, mask, _ = padded_rows(TEXT_LENGTHS, 4, vocab_size - 1, generator, first, last, pad, left_rows)
    return {"input_ids": ids, "attention_mask": mask}


def pair_inputs(generator, vocab_size, first, last, pad, left_rows):
    """BERT's sentence pairs: [CLS] a [SEP] b [SEP], token type 0 up to the first [SEP], 1 after it."""
    ids, mask, starts = padded_rows(TEXT_LENGTHS, 5, vocab_size, generator, first, last, pad, left_rows)
    types = torch.zeros_like(ids)
    for row, (start, length) in enumerate(zip(starts, TEXT_LENGTHS)):
        middle = start + max(1, length // 2)
        ids[row, middle] = last
        types[row, middle + 1:start + length] = 1
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}


def image_inputs(generator, *_):
    return {"pixel_values": torch.randn((3, 3, 32, 32), generator=generator)}


# family -> config, tokenizer writer, input maker with its special ids (first, last, pad) and left-padded
# rows, task classes. DeBERTa's rows are all right-padded: its context pooler reads position 0, a
# padding position in a left-padded row, and transformers 4.47 gives padding positions other
# states than 4.30.2 and the suite do (see model_parity_live_test.cpp).
FAMILIES = {
    "roberta": dict(config=roberta_config, tokenizer=write_byte_level_bpe, inputs=text_inputs, special=(0, 2, 1),
                    left_padded=(2,), classify=transformers.RobertaForSequenceClassification,
                    span=transformers.RobertaForQuestionAnswering),
    "deberta-v2": dict(config=deberta_v2_config, tokenizer=write_byte_level_bpe, inputs=text_inputs,
                       special=(0, 2, 1), left_padded=(), classify=transformers.DebertaV2ForSequenceClassification,
                       span=transformers.DebertaV2ForQuestionAnswering),
    "vit": dict(config=vit_config, tokenizer=None, inputs=image_inputs, special=(), left_padded=(),
                classify=transformers.ViTForImageClassification, span=None),
    "bert": dict(config=bert_config, tokenizer=write_wordpiece, inputs=pair_inputs, special=(2, 3, 0),
                 left_padded=(2,), classify=transformers.BertForSequenceClassification,
                 span=transformers.BertForQuestionAnswering),
}
# (case suffix, head, num_labels): three classes, a regression head, question answering.
HEADS = [("cls3", "sequence_classification", 3), ("reg1", "sequence_classification", 1), ("qa", "span", 2)]


def task_labels(head, num_labels, inputs, generator):
    rows = next(iter(inputs.values())).shape[0]
    if head == "span":
        width = inputs["input_ids"].shape[1]
        start = torch.randint(0, width, (rows,), generator=generator)
        end = torch.randint(0, width, (rows,), generator=generator)
        start[-1] = end[-1] = width + 5  # beyond the input: clamped to T and ignored by the loss
        return {"start_positions": start, "end_positions": end}
    if num_labels == 1:
        return {"labels": torch.randn((rows,), generator=generator)}
    return {"labels": torch.randint(0, num_labels, (rows,), generator=generator)}


def task_logits(output, head):
    """(B, T, 2) start and end logits, or (B, num_labels): DeBERTa returns a regression head's logits
    flattened to (B) when it is given labels."""
    if head == "span":
        return torch.stack([output.start_logits, output.end_logits], -1)
    return output.logits.reshape(output.logits.shape[0], -1)


def last_hidden_state(model, family, inputs, output):
    """The encoder's output: the last hidden state, except ViT's, which passes its final LayerNorm."""
    if family == "vit":
        return model.vit(pixel_values=inputs["pixel_values"]).last_hidden_state
    return output.hidden_states[-1]


@torch.no_grad()
def write_case(out_dir, family, suffix, head, num_labels, seed):
    spec = FAMILIES[family]
    generator = torch.Generator().manual_seed(seed)
    name = f"{family}-{suffix}"
    directory = os.path.join(out_dir, name)
    os.makedirs(directory, exist_ok=True)
    vocab_size = spec["tokenizer"](directory) if spec["tokenizer"] else 0
    config = spec["config"](vocab_size)
    config.num_labels = num_labels
    model = (spec["span"] if head == "span" else spec["classify"])(config).eval()
    redraw_parameters(model, generator)
    model.save_pretrained(directory, safe_serialization=True)

    inputs = spec["inputs"](generator, vocab_size, *spec["special"], spec["left_padded"])
    labels = task_labels(head, num_labels, inputs, generator)
    output = model(**inputs, **labels, output_hidden_states=True, output_attentions=True)
    io = dict(inputs, **labels)
    io["logits"] = task_logits(output, head)
    io["loss"] = output.loss.reshape(1)
    io["last_hidden_state"] = last_hidden_state(model, family, inputs, output)
    for i, hidden in enumerate(output.hidden_states):
        io[f"hidden_states.{i}"] = hidden
    for i, attention in enumerate(output.attentions):
        io[f"attentions.{i}"] = attention
    if "input_ids" in inputs:
        left = spec["inputs"](generator, vocab_size, *spec["special"], tuple(range(len(TEXT_LENGTHS))))
        io.update({f"left.{key}": value for key, value in left.items()})
        io["left.last_hidden_state"] = model(**left, output_hidden_states=True).hidden_states[-1]
        for row in range(len(TEXT_LENGTHS)):
            real = inputs["attention_mask"][row].bool()
            single = {key: value[row:row + 1, real] for key, value in inputs.items() if key != "attention_mask"}
            io[f"single.{row}.logits"] = task_logits(model(**single), head)
            for key, value in single.items():
                io[f"single.{row}.{key}"] = value

    model.double()
    inputs64 = {key: value.double() if value.is_floating_point() else value for key, value in inputs.items()}
    output64 = model(**inputs64, output_hidden_states=True)
    io["logits_f64"] = task_logits(output64, head)
    io["last_hidden_state_f64"] = last_hidden_state(model, family, inputs64, output64)
    save_tensors(os.path.join(directory, "io.safetensors"), io)
    return {"name": name, "model_type": config.model_type, "head": head, "num_labels": num_labels,
            "layers": config.num_hidden_layers}


def main():
    if len(sys.argv) < 3 or any(family not in FAMILIES for family in sys.argv[2:]):
        sys.exit(f"usage: model_reference.py OUT_DIR FAMILY [FAMILY ...], FAMILY one of {', '.join(FAMILIES)}")
    out_dir = sys.argv[1]
    cases = []
    for family in sys.argv[2:]:
        for suffix, head, num_labels in HEADS:
            if head == "span" and FAMILIES[family]["span"] is None:
                continue
            cases.append(write_case(out_dir, family, suffix, head, num_labels, seed=1000 + len(cases)))
    write_json(os.path.join(out_dir, "cases.json"), {"transformers": transformers.__version__, "cases": cases})
    print(f"model_reference: {len(cases)} cases in {out_dir}")


if __name__ == "__main__":
    main()
