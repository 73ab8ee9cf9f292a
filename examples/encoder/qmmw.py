"""Read and write qmm-encode's weight file (.qmmw, version 1; see FORMAT.md).

NumPy only, so that Debian's python3-numpy suffices.

    write(path, config, tensors)   tensors: name -> ndarray (float32, int8,
                                   uint8 or int32; 1-D arrays stored as 1 x n)
    read(path) -> (config, tensors)   tensors are rows x cols, read-only

Both check the tensors against the configuration as FORMAT.md lists them, so
that a file this module writes or accepts is one qmm-encode can load.
`python3 qmmw.py FILE` prints a file's configuration and tensors.
"""
import os
import struct
import sys

import numpy as np

MAGIC = b"qmm-bert"
VERSION = 1
HEADER_BYTES = 96
ENTRY_BYTES = 64
NAME_BYTES = 40
ALIGN = 64
MAX_TENSORS = 4096

F32, I8, U8, I32 = 0, 1, 2, 3
_DTYPES = {F32: np.dtype("<f4"), I8: np.dtype("i1"), U8: np.dtype("u1"), I32: np.dtype("<i4")}
_TYPE_NAMES = {F32: "f32", I8: "i8", U8: "u8", I32: "i32"}
_QUANTIZED = (I8, U8)

# Configuration words 0-6 and 12-16 are plain counts and ids, in this order.
_COUNTS = ("layers", "hidden", "heads", "ffn", "vocab", "max_positions", "type_vocab")
_IDS = ("max_tokens", "cls_id", "sep_id", "pad_id", "unk_id")
_POOLING = ("mean", "cls")
_ACTIVATION = ("gelu",)
CONFIG_KEYS = (_COUNTS + ("pooling", "normalize", "activation", "layer_norm_eps", "lowercase")
               + _IDS)


def fnv1a64(data):
    """FNV-1a 64 of a bytes object.

    Every step depends on the one before, so NumPy cannot vectorise it; this
    plain loop runs at about 60 ns a byte (CPython 3.11), 1.4 s for MiniLM's
    23 MB, which is fine for a tool that converts a model once."""
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def _u32(value, what):
    if (isinstance(value, bool) or not isinstance(value, (int, np.integer))
            or not 0 <= value < 2**32):
        raise ValueError(f"config {what}: {value!r} is not a u32")
    return int(value)


# qmm-encode's limits on the counts (weight_file.c's check_config): beyond
# them it refuses a file, so this module does too.
_LIMITS = {"layers": 1024, "hidden": 1 << 16, "ffn": 1 << 18, "vocab": 1 << 24,
           "max_positions": 1 << 16, "type_vocab": 1 << 10}


def _check_config(c):
    for key in _COUNTS + ("max_tokens",):
        if c[key] < 1:
            raise ValueError(f"config {key}: {c[key]} must be at least 1")
        if key in _LIMITS and c[key] > _LIMITS[key]:
            raise ValueError(f"config {key}: {c[key]} exceeds qmm-encode's limit {_LIMITS[key]}")
    if c["hidden"] % c["heads"]:
        raise ValueError(f"config: hidden {c['hidden']} is not a multiple of heads {c['heads']}")
    if c["max_tokens"] > c["max_positions"]:
        raise ValueError(f"config: max_tokens {c['max_tokens']} exceeds "
                         f"max_positions {c['max_positions']}")
    for key in ("cls_id", "sep_id", "pad_id", "unk_id"):
        if c[key] >= c["vocab"]:
            raise ValueError(f"config {key}: {c[key]} is not below vocab {c['vocab']}")
    if not 0 < c["layer_norm_eps"] < 1:  # qmm-encode refuses 1 and above
        raise ValueError(f"config layer_norm_eps: {c['layer_norm_eps']!r} is not in (0, 1)")


def _pack_config(config):
    missing = [k for k in CONFIG_KEYS if k not in config]
    unknown = [k for k in config if k not in CONFIG_KEYS]
    if missing or unknown:
        raise ValueError(f"config: missing keys {missing}, unknown keys {unknown}")
    c = {k: _u32(config[k], k) for k in _COUNTS + _IDS}
    for key, choices in (("pooling", _POOLING), ("activation", _ACTIVATION)):
        if config[key] not in choices:
            raise ValueError(f"config {key}: {config[key]!r} is not one of {choices}")
    for key in ("normalize", "lowercase"):
        if not isinstance(config[key], (bool, np.bool_)):
            raise ValueError(f"config {key}: {config[key]!r} is not a bool")
    c["layer_norm_eps"] = float(np.float32(config["layer_norm_eps"]))
    _check_config(c)
    words = [c[k] for k in _COUNTS]
    words += [_POOLING.index(config["pooling"]), int(config["normalize"]),
              _ACTIVATION.index(config["activation"]),
              int(np.float32(c["layer_norm_eps"]).view(np.uint32)), int(config["lowercase"])]
    words += [c[k] for k in _IDS] + [0, 0, 0]
    return struct.pack("<20I", *words)


def _unpack_config(raw):
    words = struct.unpack("<20I", raw)
    c = dict(zip(_COUNTS, words[0:7]))
    c.update(zip(_IDS, words[12:17]))
    for key, value, choices in (("pooling", words[7], _POOLING),
                                ("normalize", words[8], (False, True)),
                                ("activation", words[9], _ACTIVATION),
                                ("lowercase", words[11], (False, True))):
        if value >= len(choices):
            raise ValueError(f"config {key}: unknown value {value}")
        c[key] = choices[value]
    c["layer_norm_eps"] = float(np.array(words[10], np.uint32).view(np.float32))
    if any(words[17:20]):
        raise ValueError("config words 17-19 are not zero")
    _check_config(c)
    return {k: c[k] for k in CONFIG_KEYS}


def _main_tensors(c):
    """FORMAT.md's table: name -> (allowed types, shape, kind); cols None: any."""
    h, f = c["hidden"], c["ffn"]
    table = (F32, I8, U8)
    t = {
        "embeddings.word": (table, (c["vocab"], h), "embedding"),
        "embeddings.position": (table, (c["max_positions"], h), "embedding"),
        "embeddings.token_type": (table, (c["type_vocab"], h), "embedding"),
    }
    norms = ["embeddings.norm"]
    for layer in range(c["layers"]):
        p = f"layer.{layer}."
        for name, shape in (("query", (h, h)), ("key", (h, h)), ("value", (h, h)),
                            ("attention_output", (h, h)), ("intermediate", (h, f)),
                            ("output", (f, h))):
            t[p + name] = (_QUANTIZED, shape, "product")
        norms += [p + "attention_norm", p + "output_norm"]
    for norm in norms:
        t[norm + ".weight"] = t[norm + ".bias"] = ((F32,), (1, h), "norm")
    t["vocab"] = ((U8,), (1, None), "vocab")
    return t


def _check_tensors(config, tensors):
    """tensors: name -> (type, 2-D array)."""
    def expect(name, types, *shapes):
        """Check a tensor's presence, type and shape (one of shapes; cols None: any)."""
        if name not in tensors:
            raise ValueError(f"tensor {name}: missing")
        kind, a = tensors[name]
        if kind not in types:
            raise ValueError(f"tensor {name}: type {_TYPE_NAMES[kind]}, expected "
                             + " or ".join(_TYPE_NAMES[k] for k in types))
        if not any(a.shape[0] == rows and cols in (None, a.shape[1]) for rows, cols in shapes):
            raise ValueError(f"tensor {name}: shape {a.shape[0]} x {a.shape[1]}, expected "
                             + " or ".join(f"{r} x {'n' if c is None else c}" for r, c in shapes))
        seen.add(name)

    seen = set()
    for name, (types, shape, kind) in _main_tensors(config).items():
        expect(name, types, shape)
        rows, cols = shape
        if kind in ("product", "embedding") and tensors[name][0] in _QUANTIZED:
            per_line = (1, cols) if kind == "product" else (rows, 1)
            expect(name + ".scale", (F32,), (1, 1), per_line)
            scale = tensors[name + ".scale"][1]
            if not np.all(np.isfinite(scale) & (scale >= 0)):
                raise ValueError(f"tensor {name}.scale: not all finite and >= 0")
            if name + ".zero_point" in tensors:
                expect(name + ".zero_point", (I32,), scale.shape)
                zero_point = tensors[name + ".zero_point"][1]
                limits = np.iinfo(_DTYPES[tensors[name][0]])
                if zero_point.min() < limits.min or zero_point.max() > limits.max:
                    raise ValueError(f"tensor {name}.zero_point: outside {limits.dtype}'s range")
        if kind == "product":
            expect(name + ".bias", (F32,), (1, cols))
        if kind in ("product", "norm"):  # qmm-encode refuses infinities and NaNs there
            vector = name + ".bias" if kind == "product" else name
            if not np.all(np.isfinite(tensors[vector][1])):
                raise ValueError(f"tensor {vector}: not all finite")
    for layer in range(config["layers"]):
        # qmm-encode packs a layer's query, key and value as one product
        types = {tensors[f"layer.{layer}.{p}"][0] for p in ("query", "key", "value")}
        if len(types) > 1:
            raise ValueError(f"layer {layer}: query, key and value are not all of one type "
                             "(i8 or u8)")
    extra = sorted(set(tensors) - seen)
    if extra:
        raise ValueError("tensors not in FORMAT.md's list for this configuration: "
                         + ", ".join(extra))
    lines = tensors["vocab"][1].tobytes().count(b"\n") + 1
    if lines != config["vocab"]:
        raise ValueError(f"tensor vocab: {lines} tokens, config vocab {config['vocab']}")


def _encode_name(name):
    raw = name.encode("utf-8")
    if not raw or len(raw) >= NAME_BYTES or b"\0" in raw:
        raise ValueError(f"tensor name {name!r}: must be 1 to {NAME_BYTES - 1} bytes, no NUL")
    return raw


def _align(n):
    return -(-n // ALIGN) * ALIGN


def write(path, config, tensors):
    """Write config and tensors to path (through a temporary file, so that a
    failed write leaves no partial file under path)."""
    header = _pack_config(config)
    if not 1 <= len(tensors) <= MAX_TENSORS:
        raise ValueError(f"{len(tensors)} tensors: a file holds 1 to {MAX_TENSORS}")
    typed = {}
    for name, a in tensors.items():
        _encode_name(name)
        a = np.asarray(a)
        kinds = [k for k, dt in _DTYPES.items()
                 if (dt.kind, dt.itemsize) == (a.dtype.kind, a.dtype.itemsize)]
        if not kinds:
            raise ValueError(f"tensor {name}: dtype {a.dtype} is not float32, int8, uint8 "
                             "or int32")
        if a.ndim == 1:
            a = a.reshape(1, -1)
        if a.ndim != 2 or a.size == 0:
            raise ValueError(f"tensor {name}: shape {a.shape}; expected a non-empty 1-D or "
                             "2-D array")
        typed[name] = (kinds[0], np.ascontiguousarray(a, _DTYPES[kinds[0]]))
    _check_tensors(_unpack_config(header), typed)

    directory, chunks = [], []
    offset = _align(HEADER_BYTES + ENTRY_BYTES * len(typed))
    for name, (kind, a) in typed.items():
        directory.append(struct.pack("<40s4IQ", _encode_name(name), kind, *a.shape, 0, offset))
        chunks.append(a.tobytes())
        offset = _align(offset + a.nbytes)
    head = MAGIC + struct.pack("<2I", VERSION, len(typed)) + header + b"".join(directory)
    # Each part padded to the next multiple of 64 but the last: the checksum follows it.
    body = b"".join(c + bytes(_align(len(c)) - len(c)) for c in [head] + chunks[:-1])
    body += chunks[-1]
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            f.write(body)
            f.write(struct.pack("<Q", fnv1a64(body)))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def read(path):
    """(config, tensors) from path; ValueError on anything FORMAT.md rules out."""
    with open(path, "rb") as f:
        data = f.read()
    size = len(data)

    def fail(message):
        raise ValueError(f"{path}: {message}")

    if size < HEADER_BYTES + ENTRY_BYTES + 8:
        fail(f"{size} bytes is too short for a .qmmw file")
    if data[:8] != MAGIC:
        fail(f"bad magic {data[:8]!r} (expected {MAGIC!r})")
    version, count = struct.unpack_from("<2I", data, 8)
    if version != VERSION:
        fail(f"version {version}, this reader knows version {VERSION}")
    if not 1 <= count <= MAX_TENSORS:
        fail(f"tensor count {count} is not 1 to {MAX_TENSORS}")
    data_start = HEADER_BYTES + ENTRY_BYTES * count
    if data_start > size - 8:
        fail(f"the directory of {count} tensors runs past the end of the file ({size} bytes): "
             "truncated?")

    entries = []
    for i in range(count):
        raw, kind, rows, cols, zero, offset = struct.unpack_from(
            "<40s4IQ", data, HEADER_BYTES + ENTRY_BYTES * i)
        end = raw.find(b"\0")
        if end <= 0 or any(raw[end:]):
            fail(f"directory entry {i}: name is not NUL-terminated and NUL-padded")
        try:
            name = raw[:end].decode("utf-8")
        except UnicodeDecodeError:
            fail(f"directory entry {i}: name {raw[:end]!r} is not UTF-8")
        if kind not in _DTYPES or zero or rows < 1 or cols < 1:
            fail(f"tensor {name}: bad entry (type {kind}, {rows} x {cols}, reserved word {zero})")
        nbytes = rows * cols * _DTYPES[kind].itemsize
        if offset % ALIGN or offset < data_start:
            fail(f"tensor {name}: offset {offset} is not a multiple of {ALIGN} past the "
                 "directory")
        if offset + nbytes > size - 8:
            fail(f"tensor {name}: data [{offset}, {offset + nbytes}) runs past the end of the "
                 f"file ({size} bytes with the checksum): truncated?")
        entries.append((offset, nbytes, name, kind, rows, cols))
    entries.sort()
    for (o1, n1, name1, *_), (o2, _, name2, *_) in zip(entries, entries[1:]):
        if o1 + n1 > o2:
            fail(f"tensors {name1} and {name2} overlap")

    stored = struct.unpack_from("<Q", data, size - 8)[0]
    computed = fnv1a64(data[:size - 8])
    if stored != computed:
        fail(f"checksum mismatch (stored {stored:#018x}, computed {computed:#018x}): "
             "the file is corrupt")

    try:
        config = _unpack_config(data[16:HEADER_BYTES])
    except ValueError as e:
        fail(e)
    tensors = {}
    for offset, _, name, kind, rows, cols in entries:
        if name in tensors:
            fail(f"tensor {name} appears twice")
        a = np.frombuffer(data, _DTYPES[kind], rows * cols, offset)
        tensors[name] = (kind, a.reshape(rows, cols))
    try:
        _check_tensors(config, tensors)
    except ValueError as e:
        fail(e)
    return config, {name: a for name, (_, a) in tensors.items()}


def _summary(path):
    config, tensors = read(path)
    print(f"{path}: {os.path.getsize(path)} bytes, {len(tensors)} tensors, checksum verified")
    for key in CONFIG_KEYS:
        print(f"  {key} = {config[key]}")
    for name, a in tensors.items():
        print(f"  {name:40s} {a.dtype} {a.shape[0]} x {a.shape[1]}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} FILE.qmmw")
    try:
        _summary(sys.argv[1])
    except (OSError, ValueError) as e:
        sys.exit(f"{sys.argv[0]}: {e}")
