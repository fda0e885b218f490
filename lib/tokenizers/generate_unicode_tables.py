#!/usr/bin/python3
"""Writes unicode_tables.cpp: the Unicode data the tokenizers need, as sorted C++ tables.

Run with the system interpreter from lib/tokenizers/:  /usr/bin/python3 generate_unicode_tables.py
The Unicode version is that of the interpreter's unicodedata module and is recorded in the output
(kUnicodeVersion), so regenerating with a newer Python updates the tables and the version.

Tables:
  letters, numbers         general categories L* and N*: \\p{L} and \\p{N} of the GPT-2 pattern.
  BERT punctuation, BERT control characters, BERT non-spacing marks
                           what Hugging Face tokenizers 0.21.0 (BertNormalizer, BertPreTokenizer) takes
                           for ASCII punctuation or P*, for Cc/Cf/Co, and for Mn. It reads categories
                           from the `unicode_categories` crate, whose tables are of an older Unicode
                           (consistent with 8.0): characters assigned or re-categorised since then are
                           not in them. The *_NOT_IN_TOKENIZERS and *_ONLY_IN_TOKENIZERS lists below turn
                           this Python's categories into the crate's; they were measured on every code
                           point against tokenizers 0.21.0, and the parity test
                           (tests/lib/tokenizers/tokenizer_parity_live_test.cpp) measures them again.
  canonical decompositions full (recursive) canonical decompositions for NFD, Hangul syllables aside
                           (C++ decomposes those arithmetically), and canonical combining classes for
                           NFD's reordering. Only U+11938 decomposes here and not in tokenizers' NFD
                           (the unicode-normalization-alignments crate, also older): it is left out.
  lowercase                full lowercase mappings of single code points (Python's str.lower(), which
                           may expand, e.g. U+0130 -> "i" U+0307); the same as Rust's char::to_lowercase
                           in tokenizers 0.21.0 on every code point.
"""
import string
import sys
import unicodedata

# P* here but not punctuation to tokenizers 0.21.0: added to Unicode after its tables.
PUNCTUATION_NOT_IN_TOKENIZERS = [
    (0x061D, 0x061D), (0x09FD, 0x09FD), (0x0A76, 0x0A76), (0x0C77, 0x0C77), (0x0C84, 0x0C84),
    (0x1B7D, 0x1B7E), (0x2E43, 0x2E4F), (0x2E52, 0x2E5D), (0x10EAD, 0x10EAD), (0x10F55, 0x10F59),
    (0x10F86, 0x10F89), (0x1144B, 0x1144F), (0x1145A, 0x1145B), (0x1145D, 0x1145D), (0x11660, 0x1166C),
    (0x116B9, 0x116B9), (0x1183B, 0x1183B), (0x11944, 0x11946), (0x119E2, 0x119E2), (0x11A3F, 0x11A46),
    (0x11A9A, 0x11A9C), (0x11A9E, 0x11AA2), (0x11C41, 0x11C45), (0x11C70, 0x11C71), (0x11EF7, 0x11EF8),
    (0x11FFF, 0x11FFF), (0x12FF1, 0x12FF2), (0x16E97, 0x16E9A), (0x16FE2, 0x16FE2), (0x1E95E, 0x1E95F),
]
# Punctuation to tokenizers 0.21.0 but not P* here: re-categorised since (U+166D Po -> So, U+111C9 Po -> Mn).
PUNCTUATION_ONLY_IN_TOKENIZERS = [(0x166D, 0x166D), (0x111C9, 0x111C9)]
# Cf here but kept by tokenizers 0.21.0's clean_text: added to Unicode after its tables.
CONTROL_NOT_IN_TOKENIZERS = [(0x0890, 0x0891), (0x08E2, 0x08E2), (0x110CD, 0x110CD), (0x13430, 0x13438)]
# Mn here but kept by tokenizers 0.21.0's strip_accents: added, or re-categorised as Mn, after its tables.
NONSPACING_NOT_IN_TOKENIZERS = [
    (0x07FD, 0x07FD), (0x0898, 0x089F), (0x08CA, 0x08E1), (0x09FE, 0x09FE), (0x0AFA, 0x0AFF),
    (0x0B55, 0x0B55), (0x0C04, 0x0C04), (0x0C3C, 0x0C3C), (0x0D00, 0x0D00), (0x0D3B, 0x0D3C),
    (0x0D81, 0x0D81), (0x0EBA, 0x0EBA), (0x180F, 0x180F), (0x1885, 0x1886), (0x1ABF, 0x1ACE),
    (0x1DF6, 0x1DFB), (0xA82C, 0xA82C), (0xA8C5, 0xA8C5), (0xA8FF, 0xA8FF), (0xA9BD, 0xA9BD),
    (0x10D24, 0x10D27), (0x10EAB, 0x10EAC), (0x10F46, 0x10F50), (0x10F82, 0x10F85), (0x11070, 0x11070),
    (0x11073, 0x11074), (0x110C2, 0x110C2), (0x111C9, 0x111C9), (0x111CF, 0x111CF), (0x1123E, 0x1123E),
    (0x1133B, 0x1133B), (0x11438, 0x1143F), (0x11442, 0x11444), (0x11446, 0x11446), (0x1145E, 0x1145E),
    (0x1182F, 0x11837), (0x11839, 0x1183A), (0x1193B, 0x1193C), (0x1193E, 0x1193E), (0x11943, 0x11943),
    (0x119D4, 0x119D7), (0x119DA, 0x119DB), (0x119E0, 0x119E0), (0x11A01, 0x11A0A), (0x11A33, 0x11A38),
    (0x11A3B, 0x11A3E), (0x11A47, 0x11A47), (0x11A51, 0x11A56), (0x11A59, 0x11A5B), (0x11A8A, 0x11A96),
    (0x11A98, 0x11A99), (0x11C30, 0x11C36), (0x11C38, 0x11C3D), (0x11C3F, 0x11C3F), (0x11C92, 0x11CA7),
    (0x11CAA, 0x11CB0), (0x11CB2, 0x11CB3), (0x11CB5, 0x11CB6), (0x11D31, 0x11D36), (0x11D3A, 0x11D3A),
    (0x11D3C, 0x11D3D), (0x11D3F, 0x11D45), (0x11D47, 0x11D47), (0x11D90, 0x11D91), (0x11D95, 0x11D95),
    (0x11D97, 0x11D97), (0x11EF3, 0x11EF4), (0x16F4F, 0x16F4F), (0x16FE4, 0x16FE4), (0x1CF00, 0x1CF2D),
    (0x1CF30, 0x1CF46), (0x1E000, 0x1E006), (0x1E008, 0x1E018), (0x1E01B, 0x1E021), (0x1E023, 0x1E024),
    (0x1E026, 0x1E02A), (0x1E130, 0x1E136), (0x1E2AE, 0x1E2AE), (0x1E2EC, 0x1E2EF), (0x1E944, 0x1E94A),
]
# Mn to tokenizers 0.21.0 but Mc here (re-categorised in Unicode 14).
NONSPACING_ONLY_IN_TOKENIZERS = [(0x1734, 0x1734)]
# Decomposes here (Unicode 13) but not in tokenizers 0.21.0's NFD.
DECOMPOSITION_NOT_IN_TOKENIZERS = [(0x11938, 0x11938)]

HANGUL_SYLLABLES = range(0xAC00, 0xD7A4)
ALL = [cp for cp in range(sys.maxunicode + 1) if not 0xD800 <= cp <= 0xDFFF]


def expand(range_list):
    return {cp for first, last in range_list for cp in range(first, last + 1)}


def category_set(prefixes):
    return {cp for cp in ALL if unicodedata.category(chr(cp))[:len(prefixes[0])] in prefixes}


def ranges(code_points):
    out = []
    for cp in sorted(code_points):
        if out and out[-1][1] == cp - 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return out


def rows(items, per_row):
    return ",\n".join("    " + ", ".join(items[i:i + per_row]) for i in range(0, len(items), per_row))


def range_table(name, code_points):
    found = ranges(code_points)
    return ("const CodePointRange %s[] = {\n%s,\n};\nconst std::size_t %sCount = %d;\n"
            % (name, rows(["{0x%04X, 0x%04X}" % (a, b) for a, b in found], 5), name, len(found)))


def mapping_table(name, mapping):
    """{code point: [code points]} as an index sorted by code point into one flat array."""
    index, data = [], []
    for cp in sorted(mapping):
        index.append("{0x%04X, %d, %d}" % (cp, len(data), len(mapping[cp])))
        data += mapping[cp]
    return ("const CodePointMapping %s[] = {\n%s,\n};\nconst std::size_t %sCount = %d;\n"
            "const char32_t %sData[] = {\n%s,\n};\n"
            % (name, rows(index, 4), name, len(index), name, rows(["0x%04X" % cp for cp in data], 8)))


def combining_class_table(name):
    found = []
    for cp in ALL:
        ccc = unicodedata.combining(chr(cp))
        if not ccc:
            continue
        if found and found[-1][1] == cp - 1 and found[-1][2] == ccc:
            found[-1][1] = cp
        else:
            found.append([cp, cp, ccc])
    return ("const CombiningClassRange %s[] = {\n%s,\n};\nconst std::size_t %sCount = %d;\n"
            % (name, rows(["{0x%04X, 0x%04X, %d}" % tuple(r) for r in found], 4), name, len(found)))


ascii_punctuation = {ord(c) for c in string.punctuation}
bert_punctuation = ((ascii_punctuation | category_set(["P"])) - expand(PUNCTUATION_NOT_IN_TOKENIZERS)) \
    | expand(PUNCTUATION_ONLY_IN_TOKENIZERS)
bert_control = category_set(["Cc", "Cf", "Co"]) - expand(CONTROL_NOT_IN_TOKENIZERS)
bert_nonspacing = (category_set(["Mn"]) - expand(NONSPACING_NOT_IN_TOKENIZERS)) \
    | expand(NONSPACING_ONLY_IN_TOKENIZERS)
skip_decomposition = expand(DECOMPOSITION_NOT_IN_TOKENIZERS)
decompositions = {}
lowercase = {}
for cp in ALL:
    char = chr(cp)
    nfd = unicodedata.normalize("NFD", char)
    if nfd != char and cp not in HANGUL_SYLLABLES and cp not in skip_decomposition:
        decompositions[cp] = [ord(c) for c in nfd]
    if char.lower() != char:
        lowercase[cp] = [ord(c) for c in char.lower()]

with open("unicode_tables.cpp", "w", encoding="ascii") as f:
    f.write("// GENERATED by lib/tokenizers/generate_unicode_tables.py (Python %s, unicodedata %s); do not edit.\n"
            % (sys.version.split()[0], unicodedata.unidata_version))
    f.write("// What each table holds, and how the BERT tables follow Hugging Face tokenizers 0.21.0: the\n"
            "// generator's docstring and unicode_tables.h.\n\n")
    f.write('#include "tokenizers/unicode_tables.h"\n\nnamespace capaboost::unicode_tables {\n\n')
    f.write('const char* const kUnicodeVersion = "%s";\n\n' % unicodedata.unidata_version)
    f.write(range_table("kLetterRanges", category_set(["L"])) + "\n")
    f.write(range_table("kNumberRanges", category_set(["N"])) + "\n")
    f.write(range_table("kBertPunctuationRanges", bert_punctuation) + "\n")
    f.write(range_table("kBertControlRanges", bert_control) + "\n")
    f.write(range_table("kBertNonspacingMarkRanges", bert_nonspacing) + "\n")
    f.write(combining_class_table("kCombiningClassRanges") + "\n")
    f.write(mapping_table("kCanonicalDecompositions", decompositions) + "\n")
    f.write(mapping_table("kLowercaseMappings", lowercase) + "\n")
    f.write("}  // namespace capaboost::unicode_tables\n")
