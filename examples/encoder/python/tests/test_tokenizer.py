"""qmm_encoder.tokenizer.WordPiece, BERT's tokenizer, on a small vocabulary
with the expected ids written out; and, where Hugging Face's `tokenizers` is
installed (not a dependency: Debian has no python3-tokenizers), against its
BertWordPieceTokenizer on the same vocabulary."""
import unicodedata

import numpy as np
import pytest

from qmm_encoder.tokenizer import WordPiece, basic_tokenize

# Ids are the positions: the special tokens are not all at the front, so
# that an id taken from the wrong place shows.
VOCAB = [
    "[PAD]",                                                        # 0
    "the", "quick", "brown", "fox", "jump", "##s", "##ed", "over",  # 1-8
    "lazy", "dog", "un", "##aff", "##able", "[UNK]", "[CLS]",       # 9-15
    "[SEP]", "[MASK]", ",", ".", "!", "'", "(", ")", "[", "]",      # 16-25
    "$", "-", "cafe", "resume", "naive", "\u4e2d", "\u6587",        # 26-32
    "hello", "world", "a", "##b", "##c", "Hello", "THE", "caf",     # 33-40
    "##\u00e9", "\u00bf", "mask", "##a", "t", "##oo",               # 41-46
]
IDS = {t: i for i, t in enumerate(VOCAB)}
CLS, SEP, UNK, MASK = IDS["[CLS]"], IDS["[SEP]"], IDS["[UNK]"], IDS["[MASK]"]


def tok(**kw):
    return WordPiece(VOCAB, **kw)


def ids(*tokens):
    return [CLS] + [IDS[t] for t in tokens] + [SEP]


def test_special_ids_come_from_the_vocabulary_or_the_caller():
    t = tok()
    assert (t.cls_id, t.sep_id, t.unk_id, t.pad_id) == (15, 16, 14, 0)
    t = tok(cls_id=1, sep_id=2, unk_id=3, pad_id=4)
    assert t.encode("fox") == [1, 4, 2]  # "fox" is id 4
    assert t.encode("zzz") == [1, 3, 2]
    with pytest.raises(ValueError, match=r"\[CLS\]"):
        WordPiece(["[SEP]", "[UNK]", "[PAD]", "a"])
    with pytest.raises(ValueError, match="max_tokens"):
        tok(max_tokens=1)


def test_lower_casing():
    assert tok().encode("The QUICK bRoWn Fox") == [15, 1, 2, 3, 4, 16]
    assert tok().encode("THE Hello") == ids("the", "hello")
    cased = tok(lowercase=False)
    assert cased.encode("The THE the Hello hello") == [15, UNK, 39, 1, 38, 33, 16]


def test_accents_stripped_when_lower_casing():
    assert tok().encode("Caf\u00e9 R\u00c9SUM\u00c9 na\u00efve") == ids("cafe", "resume", "naive")
    # the same with the accents as combining marks
    assert tok().encode("cafe\u0301 nai\u0308ve") == ids("cafe", "naive")
    # cased: accents kept, so "café" is caf ##é, and the combining form is
    # another word (é is two characters)
    cased = tok(lowercase=False)
    assert cased.encode("caf\u00e9") == ids("caf", "##\u00e9")
    assert cased.encode("cafe\u0301") == [CLS, UNK, SEP]


def test_punctuation_is_split():
    assert tok().encode("hello,world!") == [15, 33, 18, 34, 20, 16]
    assert tok().encode("(the) dog's") == ids("(", "the", ")", "dog", "'", "[UNK]")
    assert tok().encode("a$b-a") == ids("a", "$", "[UNK]", "-", "a")
    # Unicode punctuation (Po, Pd): a word of its own
    assert tok().encode("\u00bfhello\u2014world") == ids("\u00bf", "hello", "[UNK]", "world")
    # not punctuation: symbols (So) and letters stay in the word
    assert tok().encode("hello\u2603") == [CLS, UNK, SEP]
    assert basic_tokenize("x+y=z <a> ~b~ `c`") == [
        "x", "+", "y", "=", "z", "<", "a", ">", "~", "b", "~", "`", "c", "`"]


def test_cjk_characters_are_words():
    assert tok().encode("\u4e2d\u6587") == [15, 31, 32, 16]
    assert tok().encode("hello\u4e2dworld") == ids("hello", "\u4e2d", "world")
    # kana and hangul are not in BERT's CJK ranges: one word, unmatched
    assert tok().encode("\u3072\u3089\u4e2d") == [CLS, UNK, 31, SEP]
    # (stripping accents takes the voicing mark off \u304c: NFD makes it
    # \u304b + U+3099, a nonspacing mark)
    assert basic_tokenize("\u3072\u3089\u304c\u306a") == ["\u3072\u3089\u304b\u306a"]
    assert basic_tokenize("\u3072\u3089\u304c\u306a", lowercase=False) == [
        "\u3072\u3089\u304c\u306a"]


def test_continuation_pieces():
    assert tok().encode("unaffable") == [15, 11, 12, 13, 16]
    assert tok().encode("jumps jumped jump") == [15, 5, 6, 5, 7, 5, 16]
    assert tok().encode("abcbc") == ids("a", "##b", "##c", "##b", "##c")
    # longest match first: "too" is t ##oo, not t ##o ##o (there is no ##o)
    assert tok().encode("too") == ids("t", "##oo")


def test_unmatched_words_are_one_unk():
    # one unmatched piece makes the whole word [UNK], not its matched prefix
    assert tok().encode("unaffablex foxes") == [15, UNK, UNK, 16]
    assert tok().encode("xyz the") == [15, UNK, 1, 16]
    assert tok(unk_id=0).encode("xyz") == [15, 0, 16]


def test_words_of_more_than_100_characters_are_unk():
    word = "a" + "b" * 99  # 100 characters: pieces
    assert tok().encode(word) == [CLS, IDS["a"]] + [IDS["##b"]] * 99 + [SEP]
    assert tok().encode(word + "b") == [CLS, UNK, SEP]  # 101
    assert tok(max_input_chars_per_word=5).encode("abbbb abbbbb") == ids(
        "a", "##b", "##b", "##b", "##b", "[UNK]")


def test_truncation_to_max_tokens():
    text = "the quick brown fox jumps over the lazy dog"
    full = tok().encode(text)
    assert len(full) == 12
    assert tok(max_tokens=5).encode(text) == [CLS, 1, 2, 3, SEP]
    assert tok(max_tokens=2).encode(text) == [CLS, SEP]
    assert tok(max_tokens=12).encode(text) == full
    assert tok(max_tokens=100).encode(text) == full
    assert tok(max_tokens=3).encode("") == [CLS, SEP]
    # a word's pieces are cut too, mid-word
    assert tok(max_tokens=4).encode("unaffable") == [CLS, 11, 12, SEP]


def test_literal_special_tokens():
    t = tok()
    assert t.encode("the [MASK] dog") == [CLS, 1, MASK, 10, SEP]
    assert t.encode("[CLS]fox[SEP][SEP]") == [CLS, CLS, 4, SEP, SEP, SEP]
    assert t.encode("[UNK] [PAD]") == [CLS, UNK, 0, SEP]
    # case matters: "[mask]" is text (lower-cased or not)
    assert t.encode("[mask] [Mask]") == ids("[", "mask", "]", "[", "mask", "]")
    # split_special=False: all of them text
    assert tok(split_special=False).encode("[MASK] [CLS]") == ids(
        "[", "mask", "]", "[", "[UNK]", "]")
    # special tokens count toward max_tokens as any other
    assert tok(max_tokens=4).encode("[MASK] [MASK] [MASK]") == [CLS, MASK, MASK, SEP]


def test_cleaning_and_whitespace():
    t = tok()
    # NUL, U+FFFD, controls and format characters (ZWSP, BOM) dropped
    assert t.encode("he\x00l\ufffdlo\u200b wor\x07ld\ufeff") == ids("hello", "world")
    # tab, newline, NBSP, ideographic space, em space: separators
    assert t.encode("the\tfox\ndog\r\nover\u00a0a\u3000the\u2003dog") == ids(
        "the", "fox", "dog", "over", "a", "the", "dog")
    assert t.encode("") == [CLS, SEP]
    assert t.encode(" \t\n\u3000 ") == [CLS, SEP]


def test_tokens_batches_and_vocab_files(tmp_path):
    t = tok(max_tokens=6)
    assert t.tokens("Hello, world!") == ["[CLS]", "hello", ",", "world", "!", "[SEP]"]
    assert t.tokenize_ids("Hello, world! the dog") == [33, 18, 34, 20, 1, 10]  # no truncation
    batch_ids, mask = t.encode_batch(["fox", "the quick fox", ""])
    assert batch_ids.dtype == np.int64 and mask.dtype == np.int64
    np.testing.assert_array_equal(batch_ids, [[CLS, 4, SEP, 0, 0],
                                              [CLS, 1, 2, 4, SEP],
                                              [CLS, SEP, 0, 0, 0]])
    np.testing.assert_array_equal(mask, [[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 1, 0, 0, 0]])
    path = tmp_path / "vocab.txt"
    path.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    from_file = WordPiece.from_vocab_file(path)
    assert from_file.vocab == VOCAB
    assert from_file.encode("Caf\u00e9 unaffable!") == tok().encode("Caf\u00e9 unaffable!")
    # duplicates: the last wins, as in BERT's load_vocab
    assert WordPiece(VOCAB + ["fox"]).encode("fox") == [CLS, len(VOCAB), SEP]


def test_from_config():
    config = {"lowercase": False, "cls_id": 1, "sep_id": 2, "unk_id": 3, "pad_id": 4,
              "max_tokens": 4}
    t = WordPiece.from_config(config, VOCAB)
    assert t.encode("Hello hello the fox") == [1, 38, 33, 2]
    assert t.encode("zzz") == [1, 3, 2]


# --------------------------------------------------------------------------
# Against Hugging Face's tokenizers, where it is installed.

TRICKY = [
    "Hello, World! The quick brown fox's jumps.",
    "Caf\u00e9 R\u00c9SUM\u00c9 na\u00efve \u00c5ngstr\u00f6m cafe\u0301 Z\u00fcrich",
    "\u4e2d\u6587\u5b57abc\u4e2d \u3072\u3089\u304c\u306a "
    "\uc548\ub155\ud558\uc138\uc694 \u30ab\u30bf\u30ab\u30ca",
    "[CLS] a [MASK] b [SEP][SEP] [mask] [UNK]x[PAD] [MASK",
    "tabs\tnew\nlines\r\nnbsp\u00a0ideo\u3000em\u2003zwsp\u200bbom\ufeff"
    "nul\x00fffd\ufffdbell\x07",
    "\u0130stanbul \u0391\u0398\u0397\u039d\u0391 \u039f\u0394\u039f\u03a3 "
    "Stra\u00dfe \ufb01ne \uff21\uff22\uff23",
    "\u00bfQu\u00e9? \u00a1S\u00ed! \u2014dash\u2013 \u00abguillemets\u00bb "
    "\u201cquotes\u201d \u2026 \u00b7 \u00a7",
    "emoji \U0001f600\U0001f44d\U0001f3fd x\u20ac$%^&*()_+={}[]|\\:;\"'<>,.?/~`",
    "\u0645\u064e\u0631\u0652\u062d\u064e\u0628\u064b\u0627 \u0928\u092e\u0938\u094d\u0924\u0947 "
    "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35 a\u0301\u0302\u0303",
    "x" * 100 + " " + "y" * 101 + " " + "ab" * 60,
    "unaffable jumped overs the lazy dogs " * 8,
    "",
    "   ",
]


def _comparison_vocab():
    """VOCAB, plus every character that the tricky strings may become, alone
    and as a ##continuation, so that words tokenize to pieces (where the two
    tokenizers normalised differently, the ids then differ) rather than to
    [UNK] alike."""
    chars = set()
    for s in TRICKY:
        for form in (s, s.lower(), unicodedata.normalize("NFD", s),
                     unicodedata.normalize("NFD", s).lower()):
            chars.update(form)
    chars = sorted(c for c in chars if not c.isspace() and c != "\x00")
    vocab = list(VOCAB)
    known = set(vocab)
    for piece in chars + ["##" + c for c in chars] + ["jumped", "##ffable"]:
        if piece not in known:
            vocab.append(piece)
            known.add(piece)
    return vocab


@pytest.mark.parametrize("lowercase", [True, False])
def test_matches_huggingface_tokenizers(lowercase):
    tokenizers = pytest.importorskip(
        "tokenizers", reason="Hugging Face's tokenizers is not installed (pip install "
        "tokenizers to compare against it); Debian has no package of it")
    vocab = _comparison_vocab()
    for max_tokens in (None, 16):
        hf = tokenizers.BertWordPieceTokenizer(
            {t: i for i, t in enumerate(vocab)}, lowercase=lowercase)
        if max_tokens is not None:
            hf.enable_truncation(max_tokens)
        ours = WordPiece(vocab, lowercase=lowercase, max_tokens=max_tokens)
        for s in TRICKY:
            want = hf.encode(s).ids
            assert ours.encode(s) == want, (s, ours.tokens(s), [vocab[i] for i in want])
        assert ours.encode("x" * 101) == hf.encode("x" * 101).ids == [CLS, UNK, SEP]
