#include "metrics/squad_metrics.h"

#include <locale.h>
#include <torch/torch.h>
#include <wctype.h>

#include <map>
#include <string_view>

#include "tokenizers/unicode_class.h"
#include "tokenizers/utf8.h"

namespace capaboost {
namespace {

std::u32string decode(std::string_view text) {
  check_utf8(text, "SQuAD answer");
  std::u32string out;
  for (size_t pos = 0; pos < text.size();) {
    const auto cp = decode_utf8_at(text, pos);
    out.push_back(cp.cp);
    pos += cp.length;
  }
  return out;
}

// glibc's C.UTF-8 locale carries Unicode's simple case mappings, whatever the process locale is.
locale_t unicode_ctype() {
  static const locale_t locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  TORCH_CHECK(locale != static_cast<locale_t>(nullptr), "SQuAD metrics: the C.UTF-8 locale is missing (glibc ≥ 2.35 has it)");
  return locale;
}

bool is_cased(char32_t cp) {
  const auto c = static_cast<wint_t>(cp);
  return towlower_l(c, unicode_ctype()) != c || towupper_l(c, unicode_ctype()) != c;
}

// Case-ignorable characters that occur in running text (apostrophes, periods, combining marks):
// what Python's Final_Sigma rule skips when it looks for a cased neighbour.
bool is_case_ignorable(char32_t cp) {
  return cp == U'\'' || cp == U'.' || cp == U':' || cp == U'^' || cp == U'`' || cp == 0xAD || cp == 0xB7 ||
         cp == 0x2019 || cp == 0x2018 || (cp >= 0x300 && cp <= 0x36F);
}

// Python's str.lower(): Unicode's full lowercase mapping, which differs from the simple one only for
// U+0130 (İ → i + U+0307), plus the Final_Sigma rule (Σ at the end of a word → ς).
std::u32string python_lower(const std::u32string& text) {
  std::u32string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char32_t cp = text[i];
    if (cp == 0x130) {
      out += U"i\u0307";
    } else if (cp == 0x3A3) {
      size_t before = i;
      while (before > 0 && is_case_ignorable(text[before - 1])) --before;
      size_t after = i + 1;
      while (after < text.size() && is_case_ignorable(text[after])) ++after;
      const bool final = before > 0 && is_cased(text[before - 1]) && !(after < text.size() && is_cased(text[after]));
      out.push_back(final ? 0x3C2 : 0x3C3);
    } else {
      out.push_back(static_cast<char32_t>(towlower_l(static_cast<wint_t>(cp), unicode_ctype())));
    }
  }
  return out;
}

// string.punctuation
bool is_ascii_punctuation(char32_t cp) {
  return (cp >= 0x21 && cp <= 0x2F) || (cp >= 0x3A && cp <= 0x40) || (cp >= 0x5B && cp <= 0x60) ||
         (cp >= 0x7B && cp <= 0x7E);
}

// \w of Python's re on str: str.isalnum() or "_".
bool is_word(char32_t cp) { return cp == U'_' || is_unicode_letter(cp) || is_unicode_number(cp); }

}  // namespace

std::string normalize_squad_answer(const std::string& text) {
  std::u32string chars;
  for (char32_t cp : python_lower(decode(text))) {
    if (!is_ascii_punctuation(cp)) chars.push_back(cp);
  }
  // \b(a|an|the)\b → " ": a maximal run of word characters that is exactly an article.
  std::u32string without_articles;
  for (size_t i = 0; i < chars.size();) {
    if (!is_word(chars[i])) {
      without_articles.push_back(chars[i++]);
      continue;
    }
    size_t end = i;
    while (end < chars.size() && is_word(chars[end])) ++end;
    const std::u32string word = chars.substr(i, end - i);
    without_articles += word == U"a" || word == U"an" || word == U"the" ? U" " : word;
    i = end;
  }
  // ' '.join(text.split())
  std::string out;
  bool pending_space = false;
  for (char32_t cp : without_articles) {
    if (is_python_space(cp)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    append_utf8(out, cp);
  }
  return out;
}

std::vector<std::string> squad_tokens(const std::string& text) {
  std::vector<std::string> tokens;
  const std::string normalized = normalize_squad_answer(text);
  for (size_t start = 0; start < normalized.size();) {
    size_t end = normalized.find(' ', start);
    if (end == std::string::npos) end = normalized.size();
    tokens.push_back(normalized.substr(start, end - start));
    start = end + 1;
  }
  return tokens;
}

bool squad_exact_match(const std::string& prediction, const std::string& gold) {
  return normalize_squad_answer(prediction) == normalize_squad_answer(gold);
}

namespace {

// Counter(a) & Counter(b), summed.
size_t shared_tokens(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::map<std::string, long> counts;
  for (const auto& token : a) ++counts[token];
  size_t shared = 0;
  for (const auto& token : b) {
    auto it = counts.find(token);
    if (it != counts.end() && it->second > 0) {
      --it->second;
      ++shared;
    }
  }
  return shared;
}

double f1_of(size_t shared, size_t predicted, size_t gold) {
  if (shared == 0) return 0.0;
  const double precision = static_cast<double>(shared) / static_cast<double>(predicted);
  const double recall = static_cast<double>(shared) / static_cast<double>(gold);
  return 2 * precision * recall / (precision + recall);
}

}  // namespace

double squad_f1_v1(const std::string& prediction, const std::string& gold) {
  const auto predicted = squad_tokens(prediction), expected = squad_tokens(gold);
  return f1_of(shared_tokens(predicted, expected), predicted.size(), expected.size());
}

double squad_f1_v2(const std::string& prediction, const std::string& gold) {
  const auto predicted = squad_tokens(prediction), expected = squad_tokens(gold);
  if (predicted.empty() || expected.empty()) return predicted == expected ? 1.0 : 0.0;
  return f1_of(shared_tokens(predicted, expected), predicted.size(), expected.size());
}

}  // namespace capaboost
