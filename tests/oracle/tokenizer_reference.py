"""The tokenizer oracle: Hugging Face's fast tokenizers run on texts the C++ parity test sends.

Run by tests/lib/tokenizers/tokenizer_parity_live_test.cpp with the oracle venv's interpreter
(.venv/bin/python, made by `make oracle-env`):

    tokenizer_reference.py REQUEST.json RESPONSE.json

REQUEST.json:
    {"tokenizers": [{"name": "bert", "class": "BertTokenizerFast", "dir": "<checkpoint directory>"},
                    {"name": "deberta", "class": "DebertaV2TokenizerFast", "vocab_file": "<spm.model>"}, ...],
     "items": [{"text": "...", "pair": "..." | null, "max_length": N | null}, ...],
     "bert_unicode_sweep": true | false}

RESPONSE.json:
    {"versions": {"transformers": ..., "tokenizers": ...},
     "results": {"<name>": [one row per item: {"ids": "101 7592 ...", "type_ids": "0 0 ..." | null,
                                                "offsets": "b0 e0 b1 e1 ...", "sequence": "-1 0 ..."}]},
     "bert_unicode": {...}}   (only when asked; see bert_unicode_sweep below)

Each row is tokenizer(text, pair, return_offsets_mapping=True) with the special tokens added (and
truncation=True, max_length=N when the item has one): offsets are
code point spans into the text the token came from; "sequence" is encoding.sequence_ids() with -1 where
it is None (the framing the post-processor adds, whose offsets are (0, 0)). The lists are written as
strings of space-separated integers: a few hundred thousand tokens per tokenizer parse far faster so.
"""
import json
import sys
import unicodedata

import tokenizers
import transformers
from tokenizers.normalizers import BertNormalizer
from tokenizers.pre_tokenizers import BertPreTokenizer


def load(spec):
    cls = getattr(transformers, spec["class"])
    if "dir" in spec:
        return cls.from_pretrained(spec["dir"])
    return cls(vocab_file=spec["vocab_file"])


def integers(values):
    return " ".join(map(str, values))


def encode_all(tokenizer, items):
    rows = []
    for item in items:
        truncation = {"truncation": True, "max_length": item["max_length"]} if item.get("max_length") else {}
        enc = tokenizer(item["text"], item.get("pair"), return_offsets_mapping=True, **truncation)
        type_ids = enc.get("token_type_ids")
        rows.append({
            "ids": integers(enc["input_ids"]),
            "type_ids": None if type_ids is None else integers(type_ids),
            "offsets": " ".join("%d %d" % span for span in enc["offset_mapping"]),
            "sequence": integers(-1 if s is None else s for s in enc.sequence_ids()),
        })
    return rows


def ranges(code_points):
    out = []
    for cp in sorted(code_points):
        if out and out[-1][1] == cp - 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return out


def bert_unicode_sweep():
    """What tokenizers' BertNormalizer and BertPreTokenizer do to every code point (surrogates aside), each
    step alone, in a handful of calls: the code points are joined with a separator the step leaves alone
    and the result is split on it again.
      dropped:     clean_text removes it             whitespace: clean_text makes it ' '
      chinese:     handle_chinese_chars pads it      punctuation: BertPreTokenizer isolates it
      split_space: BertPreTokenizer drops it as whitespace
      strip_accents / lowercase: {code point: result} where the step changes the character."""
    cps = [cp for cp in range(sys.maxunicode + 1) if not 0xD800 <= cp <= 0xDFFF]

    def per_char(normalizer, separator):
        chars = [cp for cp in cps if chr(cp) != separator]
        out = normalizer.normalize_str(separator.join(chr(cp) for cp in chars)).split(separator)
        assert len(out) == len(chars), "a normalized character produced the separator"
        return dict(zip(chars, out))

    clean = per_char(BertNormalizer(clean_text=True, handle_chinese_chars=False, strip_accents=False,
                                    lowercase=False), "a")
    chinese = per_char(BertNormalizer(clean_text=False, handle_chinese_chars=True, strip_accents=False,
                                      lowercase=False), "a")
    strip = per_char(BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=True,
                                    lowercase=False), "\0")
    lower = per_char(BertNormalizer(clean_text=False, handle_chinese_chars=False, strip_accents=False,
                                    lowercase=True), "\0")
    # Code point i of the joined text sits at character 2i + 1 of "a" + "a".join(...) + "a".
    chars = [cp for cp in cps if chr(cp) != "a"]
    text = "a" + "a".join(chr(cp) for cp in chars) + "a"
    covered = bytearray(len(text))
    isolated = bytearray(len(text))
    for piece, (begin, end) in BertPreTokenizer().pre_tokenize_str(text):
        assert piece == text[begin:end], "pre_tokenize_str offsets are not character offsets"
        covered[begin:end] = b"\1" * (end - begin)
        if end == begin + 1 and piece != "a":
            isolated[begin] = 1
    punctuation = [cp for i, cp in enumerate(chars) if isolated[2 * i + 1]]
    split_space = [cp for i, cp in enumerate(chars) if not covered[2 * i + 1]]
    return {
        "unicode_version_of_python": unicodedata.unidata_version,
        "dropped": ranges(cp for cp, out in clean.items() if out == ""),
        "whitespace": ranges(cp for cp, out in clean.items() if out == " " and cp != 0x20),
        "chinese": ranges(cp for cp, out in chinese.items() if out == " " + chr(cp) + " "),
        "punctuation": ranges(punctuation),
        "split_space": ranges(split_space),
        "strip_accents": {str(cp): out for cp, out in strip.items() if out != chr(cp)},
        "lowercase": {str(cp): out for cp, out in lower.items() if out != chr(cp)},
    }


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        request = json.load(f)
    response = {"versions": {"transformers": transformers.__version__, "tokenizers": tokenizers.__version__},
                "results": {}}
    for spec in request["tokenizers"]:
        response["results"][spec["name"]] = encode_all(load(spec), request["items"])
    if request.get("bert_unicode_sweep"):
        response["bert_unicode"] = bert_unicode_sweep()
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(response, f, ensure_ascii=False, separators=(",", ":"))


if __name__ == "__main__":
    main()
