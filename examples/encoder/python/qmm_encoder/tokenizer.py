"""BERT's WordPiece tokenizer (uncased or cased), pure Python (stdlib only).

It reproduces what Hugging Face's `tokenizers` does for a BERT tokenizer.json
(BertNormalizer + BertPreTokenizer + WordPiece + the [CLS] A [SEP] template),
e.g. all-MiniLM-L6-v2's, step by step:

1. Special tokens written literally in the text ("[CLS]", "[SEP]", "[UNK]",
   "[PAD]", "[MASK]": the tokens named by the ids given, plus "[MASK]" when
   the vocabulary has it) are taken out first, on the raw text, leftmost and
   longest first, and become their own ids (tokenizers' added tokens with
   normalized=false). Pass split_special=False to treat them as text.
2. Clean: drop U+0000, U+FFFD and control characters (Cc, Cf, Co; tab,
   newline and carriage return excepted); map whitespace (Rust's
   char::is_whitespace, i.e. the Unicode White_Space property, plus tab,
   newline, CR) to a space.
3. CJK ideographs (the ranges below) get a space on either side.
4. When lowercase: NFD, drop nonspacing marks (Mn), then lower-case each
   character on its own (no final-sigma rule: tokenizers lowers character by
   character).
5. Split on whitespace, and isolate each punctuation character (ASCII
   punctuation !"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ and Unicode's P* categories).
6. WordPiece: a word of more than 100 characters is [UNK]; otherwise greedy
   longest match from the left, continuations looked up with "##"; a word
   with any part unmatched is a single [UNK].
7. [CLS] + pieces truncated to max_tokens - 2 + [SEP].

Which characters are punctuation, nonspacing marks or control characters
comes from tables here (tokenizers' classes, which predate Unicode 10, checked
code point by code point); NFD and lower-casing are Python's unicodedata and
str.lower, which agree with tokenizers' on every code point under Python 3.11
(Unicode 14). A Python with a newer Unicode may differ on characters assigned
since 14.0 that decompose or have a lower-case mapping.

    >>> from qmm_encoder.tokenizer import WordPiece
    >>> tok = WordPiece.from_vocab_file("vocab.txt")
    >>> tok.encode("Hello, world!")
    [101, 7592, 1010, 2088, 999, 102]
"""
import bisect
import unicodedata

__all__ = ["WordPiece", "basic_tokenize"]

# tokenizers' is_chinese_char (normalizers/bert.rs)
_CJK_RANGES = (
    (0x4E00, 0x9FFF),
    (0x3400, 0x4DBF),
    (0x20000, 0x2A6DF),
    (0x2A700, 0x2B73F),
    (0x2B740, 0x2B81F),
    (0x2B920, 0x2CEAF),
    (0xF900, 0xFAFF),
    (0x2F800, 0x2FA1F),
)

# Rust's char::is_whitespace: the White_Space property
_WHITESPACE = frozenset(
    [0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680]
    + list(range(0x2000, 0x200B))
    + [0x2028, 0x2029, 0x202F, 0x205F, 0x3000]
)

# Character classes as tokenizers sees them. Its punctuation, nonspacing-mark
# and control ("other": Cc, Cf, Co) tests come from the unicode_categories
# crate, whose tables predate Unicode 10, not from Python's unicodedata: these
# tables are those classes, found by running tokenizers 0.23.3 on every code
# point (in "ab?cd", lower-cased and cased). Python 3.11's unicodedata
# (Unicode 14) differs on 503 code points: characters assigned since (tokenizers
# keeps them as letters), U+166D and U+111C9 (punctuation there), U+1734 (a
# nonspacing mark there). Ranges of hex code points, inclusive.
_PUNCT_TABLE = (
    "21-23 25-2a 2c-2f 3a-3b 3f-40 5b-5d 5f 7b 7d a1 a7 ab b6-b7 bb bf 37e 387 "
    "55a-55f 589-58a 5be 5c0 5c3 5c6 5f3-5f4 609-60a 60c-60d 61b 61e-61f "
    "66a-66d 6d4 700-70d 7f7-7f9 830-83e 85e 964-965 970 af0 df4 e4f e5a-e5b "
    "f04-f12 f14 f3a-f3d f85 fd0-fd4 fd9-fda 104a-104f 10fb 1360-1368 1400 "
    "166d-166e 169b-169c 16eb-16ed 1735-1736 17d4-17d6 17d8-17da 1800-180a "
    "1944-1945 1a1e-1a1f 1aa0-1aa6 1aa8-1aad 1b5a-1b60 1bfc-1bff 1c3b-1c3f "
    "1c7e-1c7f 1cc0-1cc7 1cd3 2010-2027 2030-2043 2045-2051 2053-205e 207d-207e "
    "208d-208e 2308-230b 2329-232a 2768-2775 27c5-27c6 27e6-27ef 2983-2998 "
    "29d8-29db 29fc-29fd 2cf9-2cfc 2cfe-2cff 2d70 2e00-2e2e 2e30-2e42 3001-3003 "
    "3008-3011 3014-301f 3030 303d 30a0 30fb a4fe-a4ff a60d-a60f a673 a67e "
    "a6f2-a6f7 a874-a877 a8ce-a8cf a8f8-a8fa a8fc a92e-a92f a95f a9c1-a9cd "
    "a9de-a9df aa5c-aa5f aade-aadf aaf0-aaf1 abeb fd3e-fd3f fe10-fe19 fe30-fe52 "
    "fe54-fe61 fe63 fe68 fe6a-fe6b ff01-ff03 ff05-ff0a ff0c-ff0f ff1a-ff1b "
    "ff1f-ff20 ff3b-ff3d ff3f ff5b ff5d ff5f-ff65 10100-10102 1039f 103d0 1056f "
    "10857 1091f 1093f 10a50-10a58 10a7f 10af0-10af6 10b39-10b3f 10b99-10b9c "
    "11047-1104d 110bb-110bc 110be-110c1 11140-11143 11174-11175 111c5-111c9 "
    "111cd 111db 111dd-111df 11238-1123d 112a9 114c6 115c1-115d7 11641-11643 "
    "1173c-1173e 12470-12474 16a6e-16a6f 16af5 16b37-16b3b 16b44 1bc9f "
    "1da87-1da8b "
)

_MARK_TABLE = (
    "300-36f 483-487 591-5bd 5bf 5c1-5c2 5c4-5c5 5c7 610-61a 64b-65f 670 "
    "6d6-6dc 6df-6e4 6e7-6e8 6ea-6ed 711 730-74a 7a6-7b0 7eb-7f3 816-819 "
    "81b-823 825-827 829-82d 859-85b 8e3-902 93a 93c 941-948 94d 951-957 "
    "962-963 981 9bc 9c1-9c4 9cd 9e2-9e3 a01-a02 a3c a41-a42 a47-a48 a4b-a4d "
    "a51 a70-a71 a75 a81-a82 abc ac1-ac5 ac7-ac8 acd ae2-ae3 b01 b3c b3f "
    "b41-b44 b4d b56 b62-b63 b82 bc0 bcd c00 c3e-c40 c46-c48 c4a-c4d c55-c56 "
    "c62-c63 c81 cbc cbf cc6 ccc-ccd ce2-ce3 d01 d41-d44 d4d d62-d63 dca "
    "dd2-dd4 dd6 e31 e34-e3a e47-e4e eb1 eb4-eb9 ebb-ebc ec8-ecd f18-f19 f35 "
    "f37 f39 f71-f7e f80-f84 f86-f87 f8d-f97 f99-fbc fc6 102d-1030 1032-1037 "
    "1039-103a 103d-103e 1058-1059 105e-1060 1071-1074 1082 1085-1086 108d 109d "
    "135d-135f 1712-1714 1732-1734 1752-1753 1772-1773 17b4-17b5 17b7-17bd 17c6 "
    "17c9-17d3 17dd 180b-180d 18a9 1920-1922 1927-1928 1932 1939-193b 1a17-1a18 "
    "1a1b 1a56 1a58-1a5e 1a60 1a62 1a65-1a6c 1a73-1a7c 1a7f 1ab0-1abd 1b00-1b03 "
    "1b34 1b36-1b3a 1b3c 1b42 1b6b-1b73 1b80-1b81 1ba2-1ba5 1ba8-1ba9 1bab-1bad "
    "1be6 1be8-1be9 1bed 1bef-1bf1 1c2c-1c33 1c36-1c37 1cd0-1cd2 1cd4-1ce0 "
    "1ce2-1ce8 1ced 1cf4 1cf8-1cf9 1dc0-1df5 1dfc-1dff 20d0-20dc 20e1 20e5-20f0 "
    "2cef-2cf1 2d7f 2de0-2dff 302a-302d 3099-309a a66f a674-a67d a69e-a69f "
    "a6f0-a6f1 a802 a806 a80b a825-a826 a8c4 a8e0-a8f1 a926-a92d a947-a951 "
    "a980-a982 a9b3 a9b6-a9b9 a9bc a9e5 aa29-aa2e aa31-aa32 aa35-aa36 aa43 aa4c "
    "aa7c aab0 aab2-aab4 aab7-aab8 aabe-aabf aac1 aaec-aaed aaf6 abe5 abe8 abed "
    "fb1e fe00-fe0f fe20-fe2f 101fd 102e0 10376-1037a 10a01-10a03 10a05-10a06 "
    "10a0c-10a0f 10a38-10a3a 10a3f 10ae5-10ae6 11001 11038-11046 1107f-11081 "
    "110b3-110b6 110b9-110ba 11100-11102 11127-1112b 1112d-11134 11173 "
    "11180-11181 111b6-111be 111ca-111cc 1122f-11231 11234 11236-11237 112df "
    "112e3-112ea 11300-11301 1133c 11340 11366-1136c 11370-11374 114b3-114b8 "
    "114ba 114bf-114c0 114c2-114c3 115b2-115b5 115bc-115bd 115bf-115c0 "
    "115dc-115dd 11633-1163a 1163d 1163f-11640 116ab 116ad 116b0-116b5 116b7 "
    "1171d-1171f 11722-11725 11727-1172b 16af0-16af4 16b30-16b36 16f8f-16f92 "
    "1bc9d-1bc9e 1d167-1d169 1d17b-1d182 1d185-1d18b 1d1aa-1d1ad 1d242-1d244 "
    "1da00-1da36 1da3b-1da6c 1da75 1da84 1da9b-1da9f 1daa1-1daaf 1e8d0-1e8d6 "
    "e0100-e01ef "
)

_CONTROL_TABLE = (
    "0-1f 7f-9f ad 600-605 61c 6dd 70f 180e 200b-200f 202a-202e 2060-2064 "
    "2066-206f e000-f8ff feff fff9-fffb 110bd 1bca0-1bca3 1d173-1d17a e0001 "
    "e0020-e007f f0000-ffffd 100000-10fffd "
)


def _parse_table(text):
    lo, hi = [], []
    for item in text.split():
        a, _, b = item.partition("-")
        lo.append(int(a, 16))
        hi.append(int(b or a, 16))
    return lo, hi


def _in_table(table, cp):
    lo, hi = table
    i = bisect.bisect_right(lo, cp) - 1
    return i >= 0 and cp <= hi[i]


_PUNCT = _parse_table(_PUNCT_TABLE)
_MARK = _parse_table(_MARK_TABLE)
_CONTROL = _parse_table(_CONTROL_TABLE)


def _is_cjk(cp):
    for lo, hi in _CJK_RANGES:
        if lo <= cp <= hi:
            return True
    return False


def _is_whitespace(ch):
    return ord(ch) in _WHITESPACE


def _is_control(ch):
    if ch in "\t\n\r":
        return False
    return _in_table(_CONTROL, ord(ch))


def _is_punctuation(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return cp > 127 and _in_table(_PUNCT, cp)


def normalize(text, lowercase=True):
    """Steps 2-4: BertNormalizer(clean_text, handle_chinese_chars,
    strip_accents=lowercase, lowercase)."""
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or _is_control(ch):
            continue
        if _is_whitespace(ch):
            out.append(" ")
        elif _is_cjk(cp):
            out.append(" ")
            out.append(ch)
            out.append(" ")
        else:
            out.append(ch)
    text = "".join(out)
    if lowercase:
        text = unicodedata.normalize("NFD", text)
        text = "".join(ch.lower() for ch in text if not _in_table(_MARK, ord(ch)))
    return text


def pre_tokenize(text):
    """Step 5 (BertPreTokenizer): words split on whitespace, each punctuation
    character a word of its own."""
    words = []
    cur = []
    for ch in text:
        if _is_whitespace(ch):
            if cur:
                words.append("".join(cur))
                cur = []
        elif _is_punctuation(ch):
            if cur:
                words.append("".join(cur))
                cur = []
            words.append(ch)
        else:
            cur.append(ch)
    if cur:
        words.append("".join(cur))
    return words


def basic_tokenize(text, lowercase=True):
    """Normalization and pre-tokenization: the words WordPiece sees."""
    return pre_tokenize(normalize(text, lowercase))


class WordPiece:
    """BERT WordPiece tokenizer.

    vocab: the tokens, token i having id i (vocab.txt's lines). The ids of
    [CLS], [SEP], [UNK] and [PAD] default to the vocabulary's tokens of those
    names. max_tokens: the longest encoding, [CLS] and [SEP] included
    (sentence-transformers' max_seq_length: 256 for all-MiniLM-L6-v2);
    None: no truncation.
    """

    def __init__(self, vocab, lowercase=True, cls_id=None, sep_id=None,
                 unk_id=None, pad_id=None, max_tokens=None,
                 max_input_chars_per_word=100, prefix="##", split_special=True):
        self.vocab = list(vocab)
        self.ids = {}
        for i, t in enumerate(self.vocab):
            self.ids[t] = i  # the last of duplicates wins, as in BERT's load_vocab
        self.lowercase = bool(lowercase)

        def pick(given, name):
            if given is not None:
                return int(given)
            if name not in self.ids:
                raise ValueError("no %s in the vocabulary: pass its id" % name)
            return self.ids[name]

        self.cls_id = pick(cls_id, "[CLS]")
        self.sep_id = pick(sep_id, "[SEP]")
        self.unk_id = pick(unk_id, "[UNK]")
        self.pad_id = pick(pad_id, "[PAD]")
        if max_tokens is not None and max_tokens < 2:
            raise ValueError("max_tokens must leave room for [CLS] and [SEP]")
        self.max_tokens = max_tokens
        self.max_input_chars_per_word = max_input_chars_per_word
        self.prefix = prefix
        self.special = {}
        if split_special:
            for i in (self.pad_id, self.unk_id, self.cls_id, self.sep_id):
                if 0 <= i < len(self.vocab) and self.vocab[i]:
                    self.special[self.vocab[i]] = i
            if "[MASK]" in self.ids:
                self.special["[MASK]"] = self.ids["[MASK]"]
        # longest first: among matches at one position the longest wins
        self._special_list = sorted(self.special, key=len, reverse=True)
        self._special_first = frozenset(s[0] for s in self._special_list)

    @classmethod
    def from_vocab_file(cls, path, **kw):
        with open(path, encoding="utf-8") as f:
            vocab = f.read().split("\n")
        if vocab and vocab[-1] == "":
            vocab.pop()
        return cls(vocab, **kw)

    @classmethod
    def from_config(cls, config, vocab):
        """From a .qmmw configuration dict (qmmw.read) and its vocabulary."""
        return cls(vocab, lowercase=bool(config["lowercase"]),
                   cls_id=config["cls_id"], sep_id=config["sep_id"],
                   unk_id=config["unk_id"], pad_id=config["pad_id"],
                   max_tokens=config["max_tokens"])

    # -- pieces ---------------------------------------------------------
    def _split_special(self, text):
        """[(segment, special id or None)], leftmost-longest matches."""
        if not self._special_list:
            return [(text, None)]
        out = []
        start = 0
        i = 0
        n = len(text)
        while i < n:
            if text[i] in self._special_first:
                hit = None
                for s in self._special_list:
                    if text.startswith(s, i):
                        hit = s
                        break
                if hit is not None:
                    if start < i:
                        out.append((text[start:i], None))
                    out.append((hit, self.special[hit]))
                    i += len(hit)
                    start = i
                    continue
            i += 1
        if start < n:
            out.append((text[start:], None))
        return out

    def _wordpiece(self, word, out):
        if len(word) > self.max_input_chars_per_word:
            out.append(self.unk_id)
            return
        ids = self.ids
        pieces = []
        start = 0
        n = len(word)
        while start < n:
            end = n
            found = None
            while start < end:
                sub = word[start:end]
                if start > 0:
                    sub = self.prefix + sub
                if sub in ids:
                    found = ids[sub]
                    break
                end -= 1
            if found is None:
                out.append(self.unk_id)
                return
            pieces.append(found)
            start = end
        out.extend(pieces)

    def tokenize_ids(self, text):
        """The word-piece ids of text, without [CLS]/[SEP] or truncation."""
        out = []
        for seg, sid in self._split_special(text):
            if sid is not None:
                out.append(sid)
                continue
            for word in basic_tokenize(seg, self.lowercase):
                self._wordpiece(word, out)
        return out

    def tokens(self, text):
        """encode(text) as token strings."""
        return [self.vocab[i] for i in self.encode(text)]

    def encode(self, text):
        """[CLS] pieces [SEP] as a list of ints, truncated to max_tokens."""
        ids = self.tokenize_ids(text)
        if self.max_tokens is not None:
            ids = ids[: self.max_tokens - 2]
        return [self.cls_id] + ids + [self.sep_id]

    def encode_batch(self, texts):
        """(ids, mask): NumPy int64 arrays [batch, seq], seq the longest
        encoding; ids padded on the right with pad_id, mask 1 on tokens and
        0 on padding. NumPy is imported here only."""
        import numpy as np

        encs = [self.encode(t) for t in texts]
        seq = max((len(e) for e in encs), default=0)
        ids = np.full((len(encs), seq), self.pad_id, dtype=np.int64)
        mask = np.zeros((len(encs), seq), dtype=np.int64)
        for r, e in enumerate(encs):
            ids[r, : len(e)] = e
            mask[r, : len(e)] = 1
        return ids, mask
