#include "tokenizers/utf8.h"

#include <fmt/format.h>
#include <torch/torch.h>

namespace capaboost {

namespace {

// Length of the sequence a lead byte starts and the allowed range of its second byte
// (Unicode Table 3-7, "Well-Formed UTF-8 Byte Sequences"); length 0 for bytes that never lead.
struct LeadByte {
  std::size_t length;
  unsigned char second_min;
  unsigned char second_max;
};

LeadByte lead_byte(unsigned char b) {
  if (b >= 0xC2 && b <= 0xDF) return {2, 0x80, 0xBF};
  if (b == 0xE0) return {3, 0xA0, 0xBF};  // no overlongs
  if (b == 0xED) return {3, 0x80, 0x9F};  // no surrogates
  if (b >= 0xE1 && b <= 0xEF) return {3, 0x80, 0xBF};
  if (b == 0xF0) return {4, 0x90, 0xBF};  // no overlongs
  if (b >= 0xF1 && b <= 0xF3) return {4, 0x80, 0xBF};
  if (b == 0xF4) return {4, 0x80, 0x8F};  // nothing above U+10FFFF
  return {0, 0, 0};
}

// Length of the well-formed sequence at `pos`, or the length of its maximal ill-formed subpart
// negated (at least 1 byte) when it is ill-formed.
std::ptrdiff_t sequence_at(std::string_view bytes, std::size_t pos) {
  const auto b = static_cast<unsigned char>(bytes[pos]);
  if (b < 0x80) return 1;
  const LeadByte lead = lead_byte(b);
  if (lead.length == 0) return -1;
  for (std::size_t k = 1; k < lead.length; ++k) {
    if (pos + k >= bytes.size()) return -static_cast<std::ptrdiff_t>(k);
    const auto c = static_cast<unsigned char>(bytes[pos + k]);
    const unsigned char lo = k == 1 ? lead.second_min : 0x80;
    const unsigned char hi = k == 1 ? lead.second_max : 0xBF;
    if (c < lo || c > hi) return -static_cast<std::ptrdiff_t>(k);
  }
  return static_cast<std::ptrdiff_t>(lead.length);
}

}  // namespace

std::optional<std::size_t> first_ill_formed_utf8(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (static_cast<unsigned char>(text[pos]) < 0x80) {
      ++pos;
      continue;
    }
    const std::ptrdiff_t n = sequence_at(text, pos);
    if (n <= 0) return pos;
    pos += static_cast<std::size_t>(n);
  }
  return std::nullopt;
}

void check_utf8(std::string_view text, const char* what) {
  const std::optional<std::size_t> pos = first_ill_formed_utf8(text);
  TORCH_CHECK(!pos, what, " is not valid UTF-8: ill-formed byte sequence at byte offset ", pos.value_or(0),
              fmt::format(" (byte 0x{:02X})", pos ? static_cast<unsigned char>(text[*pos]) : 0),
              "; convert the text to UTF-8 before tokenizing");
}

Utf8CodePoint decode_utf8_at(std::string_view text, std::size_t pos) {
  const auto b0 = static_cast<unsigned char>(text[pos]);
  if (b0 < 0x80) return {b0, 1};
  auto cont = [&](std::size_t k) {
    return static_cast<char32_t>(static_cast<unsigned char>(text[pos + k]) & 0x3F);
  };
  if (b0 < 0xE0) return {(static_cast<char32_t>(b0 & 0x1F) << 6) | cont(1), 2};
  if (b0 < 0xF0) return {(static_cast<char32_t>(b0 & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3};
  return {(static_cast<char32_t>(b0 & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3), 4};
}

Utf8CodePoint decode_last_utf8(std::string_view text) {
  std::size_t pos = text.size() - 1;
  while (pos > 0 && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) --pos;
  return decode_utf8_at(text, pos);
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::string utf8_with_replacement(std::string_view bytes) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
  std::string out;
  out.reserve(bytes.size());
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    const std::ptrdiff_t n = sequence_at(bytes, pos);
    if (n > 0) {
      out.append(bytes.substr(pos, static_cast<std::size_t>(n)));
      pos += static_cast<std::size_t>(n);
    } else {
      out.append(kReplacement);
      pos += static_cast<std::size_t>(-n);
    }
  }
  return out;
}

std::vector<int64_t> code_points_before(std::string_view text) {
  std::vector<int64_t> before(text.size() + 1, 0);
  for (std::size_t b = 0; b < text.size(); ++b) {
    before[b + 1] = before[b] + ((static_cast<unsigned char>(text[b]) & 0xC0) != 0x80);  // lead bytes
  }
  return before;
}

int64_t code_point_count(std::string_view text) {
  int64_t count = 0;
  for (const char byte : text) count += (static_cast<unsigned char>(byte) & 0xC0) != 0x80;  // lead bytes
  return count;
}

}  // namespace capaboost
