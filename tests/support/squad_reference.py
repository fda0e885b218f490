"""The official SQuAD evaluation, written out independently in Python for the C++ tests to compare with.

It follows evaluate-v1.1.py and evaluate-v2.0.py (the scripts' published algorithms: Python's own
str.lower, string.punctuation, the re module's \\b and str.split), so a difference from the C++ port
shows up on real text. Reads the official nested layout and Hugging Face's flat one.

  squad_reference.py normalize TEXTS.json            -> JSON list of normalised texts
  squad_reference.py evaluate DATA PRED [NA] THRESH  -> the official script's dict for DATA's version
"""
import collections
import json
import re
import string
import sys


def normalize_answer(s):
    s = s.lower()
    s = ''.join(ch for ch in s if ch not in set(string.punctuation))
    s = re.sub(r'\b(a|an|the)\b', ' ', s, flags=re.UNICODE)
    return ' '.join(s.split())


def tokens(s):
    return normalize_answer(s).split() if s else []


def f1_v1(prediction, gold):
    p, g = normalize_answer(prediction).split(), normalize_answer(gold).split()
    same = sum((collections.Counter(p) & collections.Counter(g)).values())
    if same == 0:
        return 0
    precision, recall = same / len(p), same / len(g)
    return 2 * precision * recall / (precision + recall)


def f1_v2(prediction, gold):
    p, g = tokens(prediction), tokens(gold)
    if not p or not g:
        return int(p == g)
    same = sum((collections.Counter(g) & collections.Counter(p)).values())
    if same == 0:
        return 0
    precision, recall = same / len(p), same / len(g)
    return 2 * precision * recall / (precision + recall)


def questions(dataset):
    """(id, [answer texts]) in file order, for either layout."""
    for entry in dataset['data']:
        if 'paragraphs' in entry:
            for paragraph in entry['paragraphs']:
                for qa in paragraph['qas']:
                    yield qa['id'], [a['text'] for a in qa['answers']]
        else:
            yield entry['id'], list(entry['answers']['text'])


def evaluate_v1(dataset, preds):
    exact = f1 = total = 0
    for qid, golds in questions(dataset):
        total += 1
        if qid not in preds:
            continue
        exact += max(normalize_answer(preds[qid]) == normalize_answer(g) for g in golds)
        f1 += max(f1_v1(preds[qid], g) for g in golds)
    return {'exact_match': 100.0 * exact / total, 'f1': 100.0 * f1 / total}


def evaluate_v2(dataset, preds, na_probs, thresh):
    has_ans = collections.OrderedDict((qid, bool(golds)) for qid, golds in questions(dataset))
    exact_raw, f1_raw = {}, {}
    for qid, golds in questions(dataset):
        golds = [g for g in golds if normalize_answer(g)] or ['']
        exact_raw[qid] = max(int(normalize_answer(g) == normalize_answer(preds[qid])) for g in golds)
        f1_raw[qid] = max(f1_v2(preds[qid], g) for g in golds)
    probs = na_probs if na_probs is not None else {k: 0.0 for k in preds}

    def thresholded(scores):
        return {q: (float(not has_ans[q]) if probs[q] > thresh else s) for q, s in scores.items()}

    exact, f1 = thresholded(exact_raw), thresholded(f1_raw)

    def block(ids):
        return collections.OrderedDict([('exact', 100.0 * sum(exact[k] for k in ids) / len(ids)),
                                        ('f1', 100.0 * sum(f1[k] for k in ids) / len(ids)), ('total', len(ids))])

    out = block(list(exact))
    for prefix, ids in (('HasAns', [k for k, v in has_ans.items() if v]), ('NoAns', [k for k, v in has_ans.items() if not v])):
        if ids:
            for key, value in block(ids).items():
                out[prefix + '_' + key] = value
    if na_probs is not None:
        for name, raw in (('exact', exact_raw), ('f1', f1_raw)):
            score = best = sum(1 for v in has_ans.values() if not v)
            best_thresh = 0.0
            for qid in sorted(na_probs, key=lambda k: na_probs[k]):
                if qid not in raw:
                    continue
                score += raw[qid] if has_ans[qid] else (-1 if preds[qid] else 0)
                if score > best:
                    best, best_thresh = score, na_probs[qid]
            out['best_' + name] = 100.0 * best / len(raw)
            out['best_' + name + '_thresh'] = best_thresh
    return out


def main():
    if sys.argv[1] == 'normalize':
        with open(sys.argv[2], encoding='utf-8') as f:
            print(json.dumps([normalize_answer(t) for t in json.load(f)]))
        return
    with open(sys.argv[2], encoding='utf-8') as f:
        dataset = json.load(f)
    with open(sys.argv[3], encoding='utf-8') as f:
        preds = json.load(f)
    na_probs = None
    if len(sys.argv) > 5:
        with open(sys.argv[4], encoding='utf-8') as f:
            na_probs = json.load(f, object_pairs_hook=collections.OrderedDict)
    thresh = float(sys.argv[-1])
    version = str(dataset.get('version', ''))
    if version.lstrip('vV').startswith('1'):
        print(json.dumps(evaluate_v1(dataset, preds)))
    else:
        print(json.dumps(evaluate_v2(dataset, preds, na_probs, thresh), indent=2))


if __name__ == '__main__':
    main()
