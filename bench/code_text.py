"""Comments blanked per file syntax: the Python twin of src/search/code_text.cpp.

``blank_comments(data, syntax)`` returns ``data`` (bytes) with every byte of a comment (for
Python files also of a string literal that is a whole statement: docstrings) turned into a
space, except b"\\n", b"\\r" and NUL: the same size and lines. The catalog's markers count on
that text only, unless a marker says ``"comment": true`` (patches/catalog/README.md, "Markers
count on code only"). bench/catalog_check.py uses it.

The rules are the C++ file's, byte for byte: keep the two in step. Both are held to the cases
of tests/data/code_text/cases.json (``--cases``; the test suite runs it, and
tests/test_code_text.cpp runs the same cases on the C++ side). ``--python-truth PATH...``
compares the Python rules with Python's own tokenizer and parser on every ``.py`` file under
the PATHs that parses: comments (tokenize's COMMENT tokens) and string statements (ast's
``Expr`` of a ``str`` or ``bytes`` constant, docstrings included) blanked, and the body of an
``if False:`` / ``if 0:`` (``elif`` and ``while`` too, the test in parentheses or not),
nothing else.

``--c-truth PATH...`` does the same for C, C++ and CUDA files against GCC
(``gcc -fpreprocessed -dD -E -P``, which replaces each comment by a space and keeps directives):
the two texts must be equal once whitespace, line splices and ``#pragma once`` (which GCC drops)
are taken out. Files GCC refuses are skipped; files that differ and hold an ``#if 0`` group
are counted apart (GCC's -fpreprocessed keeps those lines; we blank them).

Usage:
  bench/code_text.py --cases tests/data/code_text/cases.json
  bench/code_text.py --python-truth DIR [DIR ...]
  bench/code_text.py --c-truth DIR [DIR ...]
"""
from __future__ import annotations

C_FAMILY = {"c", "h", "cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "cu", "cuh", "inl",
            "ipp", "tpp", "C", "H"}


def comment_syntax_for(path: str) -> str:
    """"python", "c-family", "cmake", "hash-line", "shell" or "none", from the file's name."""
    name = path.rsplit("/", 1)[-1]
    if name == "CMakeLists.txt":
        return "cmake"
    dot = name.rfind(".")
    if dot <= 0:
        return "none"
    ext = name[dot + 1:]
    if ext in ("py", "pyi"):
        return "python"
    if ext in C_FAMILY:
        return "c-family"
    if ext == "cmake":
        return "cmake"
    if ext in ("sh", "bash"):
        return "shell"
    if ext in ("yml", "yaml"):
        return "hash-line"
    return "none"


def _is_word(c: int) -> bool:
    return (97 <= c <= 122) or (65 <= c <= 90) or (48 <= c <= 57) or c == 95 or c >= 0x80


def _is_digit(c: int) -> bool:
    return 48 <= c <= 57


class _Lexer:
    def __init__(self, data: bytes):
        self.s = data
        self.n = len(data)
        self.out = bytearray(data)
        self.blanked = False

    def blank(self, a: int, b: int) -> None:
        out = self.out
        for k in range(a, b):
            if out[k] not in (10, 13, 0):
                out[k] = 32
        if a < b:
            self.blanked = True

    def line_end(self, k: int) -> int:
        if k >= self.n:
            return self.n
        e = self.s.find(b"\n", k)
        return self.n if e < 0 else e

    def newline_at(self, k: int) -> int:
        s, n = self.s, self.n
        if k < n and s[k] == 10:
            return 1
        if k + 1 < n and s[k] == 13 and s[k + 1] == 10:
            return 2
        return 0

    def escape_end(self, k: int) -> int:
        nl = self.newline_at(k + 1)
        return min(self.n, k + 1 + (nl if nl else 1))

    # -- Python -----------------------------------------------------------------------------

    def py_newline_at(self, k: int) -> int:
        s, n = self.s, self.n
        if k < n and s[k] == 13:
            return 2 if k + 1 < n and s[k + 1] == 10 else 1
        return 1 if k < n and s[k] == 10 else 0

    def py_line_end(self, k: int) -> int:
        s, n = self.s, self.n
        while k < n and s[k] not in (10, 13):
            k += 1
        return k

    @staticmethod
    def python_prefix(word: bytes) -> tuple[bool, bool, bool]:
        """(a string prefix, formatted: f or t, raw)."""
        if not word or len(word) > 2:
            return False, False, False
        seen = set()
        for c in word.lower():
            ch = chr(c)
            if ch not in "rbuft":
                return False, False, False
            key = "f" if ch in "ft" else ch
            if key in seen:
                return False, False, False
            seen.add(key)
        if "u" in seen and len(word) != 1:
            return False, False, False
        if "b" in seen and "f" in seen:
            return False, False, False
        return True, "f" in seen, "r" in seen

    def python_string_end(self, q: int) -> tuple[int, bool]:
        s, n = self.s, self.n
        quote = s[q]
        triple = q + 2 < n and s[q + 1] == quote and s[q + 2] == quote
        k = q + (3 if triple else 1)
        while k < n:
            c = s[k]
            if c == 92:  # backslash
                k = self.escape_end(k)
            elif c in (10, 13) and not triple:
                return k, False
            elif c == quote:
                if not triple:
                    return k + 1, True
                if k + 2 < n and s[k + 1] == quote and s[k + 2] == quote:
                    return k + 3, True
                k += 1
            else:
                k += 1
        return n, False

    def python_fstring_end(self, q: int, raw: bool) -> tuple[int, bool]:
        """The C++ python_fstring_end(): PEP 701 f-strings, an explicit stack of levels
        [kind ("text", "field", "spec"), quote, triple, raw, bracket depth]."""
        s, n = self.s, self.n
        stack: list[list] = []

        def open_(at: int, r: bool) -> int:
            quote = s[at]
            triple = at + 2 < n and s[at + 1] == quote and s[at + 2] == quote
            stack.append(["text", quote, triple, r, 0])
            return at + (3 if triple else 1)

        k = open_(q, raw)
        while k < n:
            top = stack[-1]
            kind, tq, ttriple, traw = top[0], top[1], top[2], top[3]
            c = s[k]
            if kind != "field":
                if c == 92:
                    nxt = s[k + 1] if k + 1 < n else 0
                    if traw or nxt == 123:
                        k += 2 if nxt in (tq, 92) else 1
                    elif nxt == 78 and k + 2 < n and s[k + 2] == 123:  # \N{NAME}
                        e = k + 3
                        while e < n and s[e] not in (125, tq, 10, 13):
                            e += 1
                        k = e + 1 if e < n and s[e] == 125 else e
                    else:
                        k = self.escape_end(k)
                elif c in (10, 13) and not ttriple:
                    return k, False
                elif c == tq and (not ttriple or (k + 2 < n and s[k + 1] == c and s[k + 2] == c)):
                    k += 3 if ttriple else 1
                    while stack[-1][0] != "text":
                        stack.pop()
                    stack.pop()
                    if not stack:
                        return k, True
                elif c == 123 and kind == "text" and k + 1 < n and s[k + 1] == 123:
                    k += 2
                elif c == 123:
                    stack.append(["field", tq, ttriple, traw, 0])
                    k += 1
                elif c == 125 and kind == "spec":
                    stack.pop()
                    k += 1
                elif c == 125 and k + 1 < n and s[k + 1] == 125:
                    k += 2
                else:
                    k += 1
                continue
            word_end = k
            formatted = r = False
            if _is_word(c):
                while word_end < n and _is_word(s[word_end]):
                    word_end += 1
                ok = False
                if word_end < n and s[word_end] in (34, 39):
                    ok, formatted, r = self.python_prefix(s[k:word_end])
                k = word_end
                if not ok:
                    continue
            d = s[k]
            if d in (34, 39):
                if formatted:
                    k = open_(k, r)
                else:
                    e, closed = self.python_string_end(k)
                    if not closed:
                        return e, False
                    k = e
            elif d == 35:
                e = self.py_line_end(k)
                self.blank(k, e)
                k = e
            elif d in b"([{":
                top[4] += 1
                k += 1
            elif d in b")]" and top[4] > 0:
                top[4] -= 1
                k += 1
            elif d == 125:
                if top[4] > 0:
                    top[4] -= 1
                else:
                    stack.pop()
                k += 1
            elif d == 58 and top[4] == 0:  # ':'
                top[0] = "spec"
                k += 1
            elif d in (33, 61) and k + 1 < n and s[k + 1] == 61:
                k += 2
            else:
                k += 1
        return n, False

    COMPOUND = {b"def", b"class", b"if", b"elif", b"else", b"while", b"for", b"try", b"except",
                b"finally", b"with", b"async", b"case"}

    def soft_name(self, word: bytes, k: int) -> bool:
        if word != b"case":
            return False
        s, n = self.s, self.n
        while k < n and s[k] in (32, 9):
            k += 1
        return k >= n or s[k] in b":=.,;)]}\n\r#"

    def py_column(self, k: int) -> int:
        s = self.s
        b = k
        while b > 0 and s[b - 1] in (32, 9, 12):
            b -= 1
        col = 0
        for x in s[b:k]:
            col = (col // 8 + 1) * 8 if x == 9 else 0 if x == 12 else col + 1
        return col

    def py_false_test(self, k: int) -> bool:
        s, n = self.s, self.n
        def skip(at: int, in_parens: bool) -> int:
            while True:
                if at < n and s[at] in (32, 9, 12):
                    at += 1
                elif at < n and s[at] == 92 and self.py_newline_at(at + 1):
                    at += 1 + self.py_newline_at(at + 1)
                elif in_parens and self.py_newline_at(at):
                    at += self.py_newline_at(at)
                elif in_parens and at < n and s[at] == 35:  # #
                    at = self.py_line_end(at)
                else:
                    return at
        k = skip(k, False)
        opened = 0
        while k < n and s[k] == 40:  # (
            opened += 1
            k = skip(k + 1, True)
        e = k
        while e < n and _is_word(s[e]):
            e += 1
        if s[k:e] not in (b"False", b"0"):
            return False
        e = skip(e, opened > 0)
        while opened > 0 and e < n and s[e] == 41:  # )
            opened -= 1
            e = skip(e + 1, opened > 0)
        return opened == 0 and e < n and s[e] == 58 and (e + 1 >= n or s[e + 1] != 61)

    def python(self) -> None:
        s, n = self.s, self.n
        st = {"depth": 0, "start": True, "lead": 0, "closed_lead": 0, "header": False,
              "first": True, "lambdas": 0, "pending": False, "begin": 0, "end": 0,
              # dead code (the C++ python()): "live", "inline", "block"
              "dead": "live", "dead_header": False, "line_first": True, "line_indent": 0,
              "dead_indent": 0, "dead_from": -1, "code_end": 0, "in_token": False}

        def on_token(at: int) -> None:
            if not st["line_first"]:
                if st["dead"] == "inline" and st["dead_from"] < 0:
                    st["dead_from"] = at
                return
            st["line_first"] = False
            st["line_indent"] = self.py_column(at)
            if st["dead"] != "block":
                return
            if st["dead_from"] < 0:
                if st["line_indent"] > st["dead_indent"]:
                    st["dead_from"] = at
                else:
                    st["dead"] = "live"
            elif st["line_indent"] <= st["dead_indent"]:
                self.blank(st["dead_from"], st["code_end"])
                st["dead"] = "live"

        def settle(statement_ends: bool) -> None:
            if st["pending"] and statement_ends and st["closed_lead"] == st["lead"]:
                self.blank(st["begin"], st["end"])
            st["pending"] = False

        def new_statement(line: bool) -> None:
            st["start"] = True
            st["lead"] = st["closed_lead"] = 0
            if line:
                st["first"] = True
                st["header"] = False
                st["lambdas"] = 0
                st["dead_header"] = False

        i = 3 if s[:3] == b"\xef\xbb\xbf" else 0
        while i < n:
            if st["in_token"]:
                st["code_end"] = i
                st["in_token"] = False
            c = s[i]
            if c == 10 or (c == 13 and self.py_newline_at(i) == 1):
                if st["depth"] == 0:
                    settle(True)
                    new_statement(True)
                    st["line_first"] = True
                    if st["dead"] == "inline" and st["dead_from"] >= 0:
                        self.blank(st["dead_from"], st["code_end"])
                        st["dead"] = "live"
                    elif st["dead"] == "inline":
                        st["dead"] = "block"
                i += 1
                continue
            if c in (32, 9, 12, 13, 11):
                i += 1
                continue
            if c == 35:  # '#'
                e = self.py_line_end(i)
                self.blank(i, e)
                i = e
                continue
            if c == 92 and self.py_newline_at(i + 1):
                i += 1 + self.py_newline_at(i + 1)
                continue
            st["in_token"] = True
            on_token(i)
            if c == 59 and st["depth"] == 0:  # ';'
                settle(True)
                new_statement(True)
                i += 1
            elif c == 40 and st["start"] and not st["pending"] and st["depth"] == st["lead"]:
                st["lead"] += 1
                st["depth"] += 1
                i += 1
            elif c == 41 and st["pending"] and st["closed_lead"] < st["lead"]:
                st["closed_lead"] += 1
                st["depth"] -= 1
                i += 1
            elif (c == 58 and st["depth"] == 0 and st["header"]
                  and (i + 1 >= n or s[i + 1] != 61)):
                settle(False)
                if st["lambdas"] > 0:
                    st["lambdas"] -= 1
                    st["start"] = False
                else:
                    st["header"] = False
                    new_statement(False)
                    if st["dead_header"] and st["dead"] == "live":
                        st["dead"] = "inline"
                        st["dead_from"] = -1
                        st["dead_indent"] = st["line_indent"]
                i += 1
            else:
                quote = -1
                formatted = raw = False
                word_end = i
                if c in (34, 39):
                    quote = i
                elif _is_word(c):
                    while word_end < n and _is_word(s[word_end]):
                        word_end += 1
                    if word_end < n and s[word_end] in (34, 39):
                        ok, formatted, raw = self.python_prefix(s[i:word_end])
                        if ok:
                            quote = word_end
                if quote >= 0:
                    if formatted:
                        string_end, closed = self.python_fstring_end(quote, raw)
                    else:
                        string_end, closed = self.python_string_end(quote)
                    plain = closed and not formatted
                    if st["pending"] and plain and st["closed_lead"] == 0:
                        st["end"] = string_end
                    elif (not st["pending"] and plain and st["start"]
                          and st["depth"] == st["lead"]):
                        st["pending"] = True
                        st["begin"], st["end"] = i, string_end
                    else:
                        settle(False)
                    st["start"] = False
                    st["first"] = False
                    i = string_end
                    continue
                settle(False)
                st["start"] = False
                if word_end > i:
                    word = s[i:word_end]
                    if st["first"] and st["depth"] == 0:
                        st["header"] = word in self.COMPOUND and not self.soft_name(word, word_end)
                        st["dead_header"] = (st["header"] and word in (b"if", b"elif", b"while")
                                             and self.py_false_test(word_end))
                    if st["header"] and st["depth"] == 0 and word == b"lambda":
                        st["lambdas"] += 1
                    st["first"] = False
                    i = word_end
                    continue
                st["first"] = False
                if c in b"([{":
                    st["depth"] += 1
                if c in b")]}" and st["depth"] > 0:
                    st["depth"] -= 1
                i += 1
        if st["in_token"]:
            st["code_end"] = i
        settle(True)
        if st["dead"] != "live" and st["dead_from"] >= 0:
            self.blank(st["dead_from"], st["code_end"])

    # -- C, C++, CUDA -----------------------------------------------------------------------

    def c_line_comment_end(self, k: int) -> int:
        s, n = self.s, self.n
        while True:
            nl = self.line_end(k)
            if nl == n:
                return n
            b = nl
            while b > k and s[b - 1] in (32, 9, 13):
                b -= 1
            if b == k or s[b - 1] != 92:
                return nl
            k = nl + 1

    def c_literal_end(self, q: int) -> int:
        s, n = self.s, self.n
        quote = s[q]
        k = q + 1
        while k < n:
            c = s[k]
            if c == 92:
                j = self.c_unsplice(k)  # a splice with blanks before its break too
                k = j if j != k else self.escape_end(k)
            elif c == 10:
                return k
            elif c == quote:
                return k + 1
            else:
                k += 1
        return n

    def c_raw_string_end(self, q: int) -> int:
        s, n = self.s, self.n
        k = q + 1
        while k < n and k - (q + 1) <= 16 and s[k] != 40:  # '('
            if s[k] in b" )\\\t\v\f\n\r\"":
                break
            k += 1
        if k >= n or s[k] != 40 or k - (q + 1) > 16:
            return self.c_literal_end(q)
        close = b")" + s[q + 1:k] + b'"'
        e = s.find(close, k + 1)
        return n if e < 0 else e + len(close)

    def pp_number_end(self, k: int) -> int:
        s, n = self.s, self.n
        k += 1
        while k < n:
            c = s[k]
            if _is_word(c) or c == 46:
                k += 1
            elif c in (43, 45) and s[k - 1] in b"eEpP":
                k += 1
            elif c == 39 and k + 1 < n and _is_word(s[k + 1]):
                k += 2
            else:
                break
        return k

    def c_unsplice(self, k: int) -> int:
        s, n = self.s, self.n
        while k < n and s[k] == 92:
            b = k + 1
            while b < n and s[b] in (32, 9):
                b += 1
            nl = self.newline_at(b)
            if not nl:
                break
            k = b + nl
        return k

    def c_block_comment_end(self, k: int) -> int:
        s, n = self.s, self.n
        while k < n:
            star = s.find(b"*", k)
            if star < 0:
                return n
            j = self.c_unsplice(star + 1)
            if j < n and s[j] == 47:
                return j + 1
            k = star + 1
        return n

    def c_blanks_end(self, k: int) -> int:
        s, n = self.s, self.n
        while k < n and s[k] in (32, 9):
            k += 1
        return k

    def c_space_end(self, k: int) -> int:
        while True:
            j = self.c_unsplice(self.c_blanks_end(k))
            if j == k:
                return k
            k = j

    def c_spliced_word(self, k: int) -> tuple[bytes, int]:
        s, n = self.s, self.n
        word = bytearray()
        end = k
        k = self.c_unsplice(k)
        while k < n and _is_word(s[k]):
            if len(word) < 16:
                word.append(s[k])
            end = k + 1
            k = self.c_unsplice(k + 1)
        return bytes(word), end

    def c_logical_line_end(self, k: int) -> int:
        s, n = self.s, self.n
        while True:
            nl = self.line_end(k)
            if nl == n:
                return n
            b = nl
            if b > k and s[b - 1] == 13:
                b -= 1
            while b > k and s[b - 1] in (32, 9):
                b -= 1
            if b == k or s[b - 1] != 92:
                return nl + 1
            k = nl + 1

    def c_if_zero(self, k: int) -> bool:
        s, n = self.s, self.n
        k = self.c_space_end(k)
        if k >= n or s[k] != 48:
            return False
        k = self.c_unsplice(k + 1)
        if k < n and (_is_word(s[k]) or s[k] in (46, 39)):
            return False
        while True:
            k = self.c_space_end(k)
            if k >= n or s[k] in (10, 13):
                return True
            if s[k] != 47:
                return False
            after = self.c_unsplice(k + 1)
            if after < n and s[after] == 47:
                return True
            if after >= n or s[after] != 42:
                return False
            k = self.c_block_comment_end(after + 1)

    def c_family(self) -> None:
        s, n = self.s, self.n
        i = 3 if s[:3] == b"\xef\xbb\xbf" else 0  # GCC skips a leading byte order mark
        line_start = True
        line_begin = 0
        dead = 0
        dead_from = 0
        ignored_tail = False  # after #endif or #else on this logical line
        while i < n:
            c = s[i]
            after = self.c_unsplice(i + 1) if c == 47 else i + 1
            nxt = s[after] if after < n else 0
            if c == 10:
                i += 1
                line_start = True
                ignored_tail = False
                line_begin = i
                continue
            if c in (32, 9, 13, 12, 11):
                i += 1
                continue
            if c == 92:
                j = self.c_unsplice(i)
                if j != i:  # a line splice: the logical line goes on
                    i = j
                    continue
            directive = c == 35 and line_start
            line_start = line_start and c == 47 and nxt == 42
            token = i
            comment = False
            if directive:
                word, e = self.c_spliced_word(self.c_space_end(i + 1))
                if dead == 0:
                    if word == b"if" and self.c_if_zero(e):
                        dead = 1
                        dead_from = self.c_logical_line_end(e)
                elif word in (b"if", b"ifdef", b"ifndef"):
                    dead += 1
                elif word == b"endif" or (dead == 1 and word in (b"else", b"elif", b"elifdef",
                                                                 b"elifndef")):
                    if word != b"endif":
                        dead = 0
                    else:
                        dead -= 1
                    if dead == 0:
                        self.blank(dead_from, line_begin)
                ignored_tail = word in (b"endif", b"else")
                i = e
            elif c == 47 and nxt == 47:
                e = self.c_line_comment_end(after + 1)
                self.blank(i, e)
                i = e
                comment = True
            elif c == 47 and nxt == 42:
                e = self.c_block_comment_end(after + 1)
                self.blank(i, e)
                i = e
                comment = True
            elif c in (34, 39):
                i = self.c_literal_end(i)
            elif _is_digit(c) or (c == 46 and _is_digit(nxt)):
                i = self.pp_number_end(i)
            elif _is_word(c):
                k = i
                while k < n and _is_word(s[k]):
                    k += 1
                if k < n and s[k] == 34 and s[i:k] in (b"R", b"LR", b"uR", b"UR", b"u8R"):
                    i = self.c_raw_string_end(k)
                else:
                    i = k
            else:
                i += 1
            if ignored_tail and not directive and not comment:
                self.blank(token, i)

    # -- CMake ------------------------------------------------------------------------------

    def bracket_open(self, k: int) -> tuple[int, int]:
        s, n = self.s, self.n
        if k >= n or s[k] != 91:
            return 0, 0
        j = k + 1
        while j < n and s[j] == 61:
            j += 1
        if j >= n or s[j] != 91:
            return 0, 0
        return j - k + 1, j - k - 1

    def bracket_close_end(self, k: int, level: int) -> int:
        s, n = self.s, self.n
        while k < n:
            at = s.find(b"]", k)
            if at < 0:
                return n
            j = at + 1
            while j < n and s[j] == 61:
                j += 1
            if j < n and s[j] == 93 and j - at - 1 == level:
                return j + 1
            k = j
        return n

    def cmake(self) -> None:
        s, n = self.s, self.n
        i = 0
        while i < n:
            c = s[i]
            if c == 35:
                length, level = self.bracket_open(i + 1)
                e = self.bracket_close_end(i + 1 + length, level) if length else self.line_end(i)
                self.blank(i, e)
                i = e
            elif c == 34:
                k = i + 1
                while k < n and s[k] != 34:
                    k = self.escape_end(k) if s[k] == 92 else k + 1
                i = min(n, k + 1)
            elif c == 91 and (i == 0 or s[i - 1] in b" \t\n\r("):
                length, level = self.bracket_open(i)
                i = self.bracket_close_end(i + length, level) if length else i + 1
            elif c == 92:
                i = self.escape_end(i)
            else:
                i += 1

    # -- shell ------------------------------------------------------------------------------

    def heredoc_end(self, k: int, delim: bytes, strip_tabs: bool) -> int:
        s, n = self.s, self.n
        while k < n:
            b = k
            if strip_tabs:
                while b < n and s[b] == 9:
                    b += 1
            e = self.line_end(b)
            line = s[b:e]
            if line.endswith(b"\r"):
                line = line[:-1]
            if line == delim:
                return min(n, e + 1)
            k = e + 1
        return n

    def heredoc_word(self, k: int) -> tuple[int, bytes, bool]:
        """(one past the word or 0, delimiter, <<-) for a `<<` at k."""
        s, n = self.s, self.n
        k += 2
        strip_tabs = k < n and s[k] == 45
        if strip_tabs:
            k += 1
        while k < n and s[k] in (32, 9):
            k += 1
        delim = bytearray()
        while k < n:
            c = s[k]
            if c in (39, 34):
                close = s.find(bytes([c]), k + 1)
                nl = self.line_end(k)
                if close < 0 or close > nl:
                    return 0, b"", strip_tabs
                delim += s[k + 1:close]
                k = close + 1
            elif c == 92 and k + 1 < n and s[k + 1] != 10:
                delim.append(s[k + 1])
                k += 2
            elif c in b" \t\n\r;&|()<>":
                break
            else:
                delim.append(c)
                k += 1
        return (k if delim else 0), bytes(delim), strip_tabs

    def shell_double_quote_end(self, q: int) -> int:
        s, n = self.s, self.n
        k = q + 1
        while k < n and s[k] != 34:
            k = self.escape_end(k) if s[k] == 92 else k + 1
        return min(n, k + 1)

    def shell_arith_end(self, k: int, open_: int = 40, close: int = 41, depth: int = 2) -> int:
        s, n = self.s, self.n
        while k < n:
            if s[k] == open_:
                depth += 1
            elif s[k] == close:
                depth -= 1
                if depth == 0:
                    return k + 1
            k += 1
        return n

    def shell_brace_end(self, k: int) -> int:
        s, n = self.s, self.n
        depth = 1
        while k < n:
            c = s[k]
            if c == 92:
                k = self.escape_end(k)
            elif c == 34:
                k = self.shell_double_quote_end(k)
            elif c == 39:
                close = s.find(b"'", k + 1)
                k = n if close < 0 else close + 1
            elif c == 123:
                depth += 1
                k += 1
            elif c == 125:
                k += 1
                depth -= 1
                if depth == 0:
                    return k
            else:
                k += 1
        return n

    def shell(self) -> None:
        s, n = self.s, self.n
        i = 0
        word_start = True
        heredocs: list[tuple[bytes, bool]] = []
        while i < n:
            c = s[i]
            if c == 10:
                i += 1
                for delim, strip in heredocs:
                    i = self.heredoc_end(i, delim, strip)
                heredocs.clear()
                word_start = True
            elif c == 35 and word_start:
                e = self.line_end(i)
                self.blank(i, e)
                i = e
            elif c == 40 and i + 1 < n and s[i + 1] == 40:  # (( or $((: arithmetic
                i = self.shell_arith_end(i + 2)
                word_start = False
            elif c == 36 and i + 1 < n and s[i + 1] == 91:  # $[: older arithmetic
                i = self.shell_arith_end(i + 2, 91, 93, 1)
                word_start = False
            elif c in b" \t\r;&|()>":
                word_start = True
                i += 1
            elif c == 60:  # '<'
                e = 0
                if i + 1 < n and s[i + 1] == 60 and (i + 2 >= n or s[i + 2] != 60):
                    e, delim, strip = self.heredoc_word(i)
                if e:
                    heredocs.append((delim, strip))
                    i = e
                    word_start = False
                else:
                    while i < n and s[i] == 60:
                        i += 1
                    word_start = True
            elif c == 92:
                i = self.escape_end(i)
                word_start = False
            elif c == 39 or (c == 36 and i + 1 < n and s[i + 1] == 39):
                ansi = c == 36
                k = i + (2 if ansi else 1)
                while k < n and s[k] != 39:
                    k = self.escape_end(k) if ansi and s[k] == 92 else k + 1
                i = min(n, k + 1)
                word_start = False
            elif c == 34:
                i = self.shell_double_quote_end(i)
                word_start = False
            elif c == 36 and i + 1 < n and s[i + 1] == 123:
                i = self.shell_brace_end(i + 2)
                word_start = False
            else:
                word_start = False
                i += 1

    # -- YAML -------------------------------------------------------------------------------

    def hash_lines(self) -> None:
        s, n = self.s, self.n
        i = 3 if s[:3] == b"\xef\xbb\xbf" else 0  # YAML allows one before the first line
        while i < n:
            k = i
            while k < n and s[k] in (32, 9):
                k += 1
            e = self.line_end(k)
            if k < n and s[k] == 35:
                self.blank(k, e)
            i = e + 1


def blank_comments(data: bytes, syntax: str) -> tuple[bytes, bool]:
    """(``data`` with its comments blanked, whether any byte was)."""
    lx = _Lexer(data)
    {"python": lx.python, "c-family": lx.c_family, "cmake": lx.cmake,
     "hash-line": lx.hash_lines, "shell": lx.shell}.get(syntax, lambda: None)()
    return bytes(lx.out), lx.blanked


def check_cases(path: str) -> int:
    """Runs the cases file; prints each mismatch; returns how many cases failed."""
    import json
    doc = json.load(open(path, encoding="utf-8"))
    failed = 0
    for c in doc["cases"]:
        data = "\n".join(c["input"]).encode()
        expect = "\n".join(c["expect"]).encode()
        want = bytes(32 if e == 0x7E else b for b, e in zip(data, expect))
        got, _ = blank_comments(data, c["syntax"])
        if got != want:
            failed += 1
            print(f"FAIL {c['name']}")
            for g, w in zip(got.split(b"\n"), want.split(b"\n")):
                if g != w:
                    print(f"  got  {g!r}\n  want {w!r}")
    print(f"{len(doc['cases'])} cases, {failed} failed")
    return failed


def python_truth(data: bytes) -> bytes | None:
    """``data`` blanked by Python's tokenizer and parser, or None when it does not parse."""
    import ast
    import io
    import tokenize
    try:
        tree = ast.parse(data)
        tokens = list(tokenize.tokenize(io.BytesIO(data).readline))
    except (SyntaxError, ValueError, tokenize.TokenError, RecursionError, MemoryError):
        return None
    starts = [0]  # byte offset of each line (1-based line numbers index starts[line - 1])
    for k, b in enumerate(data):
        if b == 10:
            starts.append(k + 1)
    out = bytearray(data)

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] not in (10, 13, 0):
                out[k] = 32

    def offset(line: int, col: int, text_line: bytes | None = None) -> int:
        return starts[line - 1] + col

    for t in tokens:
        if t.type == tokenize.COMMENT:
            # tokenize columns count characters: convert with the line's own text.
            line_start = starts[t.start[0] - 1]
            line = data[line_start:data.find(b"\n", line_start) if data.find(b"\n", line_start) >= 0 else len(data)]
            col = len(line.decode("utf-8", errors="surrogateescape")[:t.start[1]].encode("utf-8", errors="surrogateescape"))
            blank(line_start + col, line_start + len(line.rstrip(b"\r")))
    import re
    # Between the header's tokens: blanks, line joins, and (in parentheses) breaks and comments.
    ws = rb"(?:[ \t\f\r\n]|\\\r?\n|\\\r|#[^\r\n]*)*"
    dead_header = re.compile(rb"(?:(?:el)?if|while)" + ws + rb"(?:\(" + ws + rb")*(?:False|0)" + ws
                             + rb"(?:\)" + ws + rb")*:")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, (str, bytes))):
            v = node.value  # ast offsets are UTF-8 byte offsets
            blank(offset(v.lineno, v.col_offset), offset(v.end_lineno, v.end_col_offset))
        # Dead code: the body of `if False:` / `if 0:` (elif too: an If whose offset is its
        # keyword's), from its first statement (a decorator's "@" for a decorated one) to the
        # end of its last.
        if (isinstance(node, (ast.If, ast.While)) and isinstance(node.test, ast.Constant)
                and dead_header.match(data, offset(node.lineno, node.col_offset))):
            first, last = node.body[0], node.body[-1]
            start = offset(first.lineno, first.col_offset)
            if getattr(first, "decorator_list", None):
                d = first.decorator_list[0]
                start = data.rfind(b"@", 0, offset(d.lineno, d.col_offset))
            blank(start, offset(last.end_lineno, last.end_col_offset))
    return bytes(out)


def check_python_truth(paths: list[str]) -> int:
    """Compares blank_comments() with python_truth() on every parsing .py file under paths."""
    from pathlib import Path
    files = same = skipped = 0
    for root in paths:
        for f in sorted(Path(root).rglob("*.py")):
            if not f.is_file() or f.is_symlink():
                continue
            data = f.read_bytes()
            truth = python_truth(data)
            if truth is None:
                skipped += 1
                continue
            files += 1
            got, _ = blank_comments(data, "python")
            if got == truth:
                same += 1
                continue
            for n, (g, w) in enumerate(zip(got.split(b"\n"), truth.split(b"\n")), 1):
                if g != w:
                    print(f"{f}:{n}:\n  ours   {g[:160]!r}\n  python {w[:160]!r}")
                    break
    print(f"{files} files parsed, {same} identical, {files - same} differ; {skipped} not parsed")
    return files - same


def check_c_truth(paths: list[str]) -> int:
    """Compares blank_comments() with GCC's comment removal on every C-family file under paths."""
    import re
    import subprocess
    from pathlib import Path

    def tokens(b: bytes) -> bytes:
        b = b.replace(b"\\\r\n", b"").replace(b"\\\n", b"").replace(b"#pragma once", b"")
        return re.sub(rb"\s+", b"", b)

    if_zero = re.compile(rb"(?m)^[ \t]*#[ \t]*if[ \t]+0\b")
    files = same = skipped = dead = 0
    for root in paths:
        for f in sorted(Path(root).rglob("*")):
            if f.is_symlink() or not f.is_file() or comment_syntax_for(f.name) != "c-family":
                continue
            data = f.read_bytes()
            r = subprocess.run(["gcc", "-fpreprocessed", "-dD", "-E", "-P", "-x", "c++", "-"],
                               input=data, capture_output=True)
            if r.returncode != 0:
                skipped += 1
                continue
            files += 1
            got, _ = blank_comments(data, "c-family")
            if tokens(got) == tokens(r.stdout):
                same += 1
            elif if_zero.search(data):
                dead += 1  # GCC keeps the lines of #if 0 groups, which we blank
            else:
                print(f"{f}: differs from gcc")
    print(f"{files} files read by gcc, {same} identical, {dead} differ where they hold #if 0, "
          f"{files - same - dead} differ otherwise; {skipped} refused")
    return files - same - dead


if __name__ == "__main__":
    import sys
    if len(sys.argv) >= 3 and sys.argv[1] == "--cases":
        sys.exit(1 if check_cases(sys.argv[2]) else 0)
    if len(sys.argv) >= 3 and sys.argv[1] == "--python-truth":
        sys.exit(1 if check_python_truth(sys.argv[2:]) else 0)
    if len(sys.argv) >= 3 and sys.argv[1] == "--c-truth":
        sys.exit(1 if check_c_truth(sys.argv[2:]) else 0)
    print(__doc__.split("Usage:")[1], file=sys.stderr)
    sys.exit(2)
