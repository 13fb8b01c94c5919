"""What the dataset card (shared/reference/linteval-dataset-card.txt) shows of its real rows.

The card is a table viewer's rendering: long cells are cut, and for the first four rows the
viewer strips each line's leading whitespace (their revisions and the JSON-escaped rows show
2-space indentation, and the recorded columns only fit that). Here, per row, only what is
visible, with the reconstruction needed to make a visible prefix a complete file said in
place. clang-tidy sorts its diagnostics by file offset, so a C++ row's first recorded alert
also says that nothing precedes it (``clean_before``).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Alert:
    line: int
    column: int
    check_name: str
    message_text: str

    @property
    def identity(self) -> str:
        return f"{self.check_name}::{self.message_text}"


@dataclass(frozen=True)
class CppView:
    """A visible C++ program: ``visible`` lines verbatim, then ``completion`` (ours)."""

    sample_id: str
    visible: str
    completion: str
    first_alert: Alert | None  # None: the record has no alert at all on this program
    recorded_count: int
    visible_lines: int = field(default=0)

    @property
    def code(self) -> str:
        return self.visible + self.completion

    @property
    def clean_before(self) -> tuple[int, int]:
        """(line, column) before which the record has no alert (the whole visible part if none)."""
        if self.first_alert is None:
            return (self.visible.count("\n") + 1, 0)
        return (self.first_alert.line, self.first_alert.column)


# -- py3: 1036_A_py3_0 is fully visible (original, response, revision) ---------------------------

A1036_ORIGINAL = ('n,k = list(map(int, input().split(" ")))\n'
                  "print(max(n,k)//min(n,k) if max(n,k)%min(n,k)==0 else max(n,k)//min(n,k)+1)")
A1036_RESPONSE = ('n, k = list(map(int, input().split(" ")))\n'
                  "print(max(n, k) // min(n, k) if not max(n, k) % min(n, k) else max(n, k) // min(n, k) + 1)")
A1036_REVISED = A1036_RESPONSE  # the card: revised_code == raw_response, no final newline
# Recorded: 3 alerts; the first is shown whole, the other two are inferred (docs/fidelity.md).
A1036_ORIGINAL_IDENTITIES = sorted([
    "missing-final-newline::Final newline missing",
    "missing-module-docstring::Missing module docstring",
    'use-implicit-booleaness-not-comparison-to-zero::"max(n, k) % min(n, k) == 0" can be simplified to '
    '"not max(n, k) % min(n, k)", if it is strictly an int, as 0 is falsey',
])
A1036_REVISED_IDENTITIES = sorted([
    "missing-final-newline::Final newline missing",
    "missing-module-docstring::Missing module docstring",
])
# 1162_E_py3_0: the original is visible up to its last line's cut; 2 alerts, the first
# missing-final-newline at 4:0 (the record's original_loc 3 counts non-blank lines).
E1162_ORIGINAL_PREFIX = ('n = int(input())\nar = list(map(int, input().split()))\n\n'
                         'print("Alice" if ar.count(min(ar)) <= n')
E1162_ORIGINAL = E1162_ORIGINAL_PREFIX + ' // 2 else "Bob")'  # completion: ours (no final newline, as recorded)

# -- cpp ------------------------------------------------------------------------------------------

CPP_106C = CppView(
    sample_id="106_C_cpp_0",
    visible=(
        "#include <bits/stdc++.h>\nusing namespace std;\nint dp[11][1004], a[102], b[102], c[102], d[102];\n"
        "int main() {\n  ios_base::sync_with_stdio(0);\n  cin.tie(0);\n  cout.tie(0);\n  int n, m, c0, d0;\n"
        "  cin >> n >> m >> c0 >> d0;\n  for (int i = 0; i < m; i++) cin >> a[i] >> b[i] >> c[i] >> d[i];\n"
    ),
    completion="  return 0;\n}\n",  # line 11 onwards is cut; closing main is all a compiler needs
    first_alert=Alert(6, 11, "modernize-use-nullptr", "use nullptr"),
    recorded_count=7,
)
CPP_106C_REVISION = CppView(
    sample_id="106_C_cpp_0 (revision)",
    visible=(
        "#include <bits/stdc++.h>\nusing namespace std;\nint dp[11][1004], a[102], b[102], c[102], d[102];\n"
        "int main() {\n  ios_base::sync_with_stdio(false);\n  cin.tie(nullptr);\n  cout.tie(nullptr);\n"
        "  int n, m, c0, d0;\n  cin >> n >> m >> c0 >> d0;\n  for (int i = 0; i < m; i++) {\n"
        "    cin >> a[i] >> b[i] >> c[i] >> d[i];\n  }\n"
    ),
    completion="  return 0;\n}\n",
    first_alert=None,  # the record scores the reference revision at 0 alerts
    recorded_count=0,
)
CPP_1045F = CppView(
    sample_id="1045_F_cpp_0",
    visible=(
        "#include <bits/stdc++.h>\nusing namespace std;\ntemplate <class T>\ninline void read(T &x) {\n"
        "  x = 0;\n  register char c = getchar();\n  register bool f = 0;\n"
        "  while (!isdigit(c)) f ^= c == '-', c = getchar();\n"
        "  while (isdigit(c)) x = x * 10 + c - '0', c = getchar();\n  if (f) x = -x;\n}\n"
        "const int N = 2e5 + 10;\n"
    ),
    completion="int main() {\n  int n;\n  read(n);\n  return n < N ? 0 : 1;\n}\n",  # `struct node {` onwards is cut
    first_alert=Alert(6, 3, "clang-diagnostic-register", "ISO C++17 does not allow 'register' storage class specifier"),
    recorded_count=21,
)
CPP_1045F_REVISION = CppView(
    sample_id="1045_F_cpp_0 (revision)",
    visible=(
        "#include <bits/stdc++.h>\nusing namespace std;\ntemplate <class T>\ninline void read(T &x) {\n"
        "  x = 0;\n  char c = getchar();\n  bool f = 0;\n  while (!isdigit(c)) {\n    f ^= c == '-';\n"
        "    c = getchar();\n  }\n  while (isdigit(c)) {\n    x = x * 10 + c - '0';\n    c = getchar();\n  }\n"
        "  if (f) x = -x;\n}\nconst int N = 2e5 + 10;\n"
    ),
    completion="int main() {\n  int n;\n  read(n);\n  return n < N ? 0 : 1;\n}\n",
    first_alert=Alert(6, 12, "bugprone-narrowing-conversions",
                      "narrowing conversion from 'int' to signed type 'char' is implementation-defined"),
    recorded_count=10,
)
CPP_1007D = CppView(
    sample_id="1007_D_cpp_0",
    visible=(
        '#pragma comment(linker, "/STACK:102400000,102400000")\n#include<bits/stdc++.h>\n'
        "#define For(i,x,y) for (int i=x;i<y;i++)\n#define pb push_back\n#define mp make_pair\n"
        "#define fi first\n#define se second\n#define lf else if\n#define Lsn (x<<1)\n#define Rsn (x<<1|1)\n"
        "#define Mid ((L+R)>>1)\n"
    ),
    completion="int main() { return 0; }\n",  # `#define dprintf(...)` is cut mid-line; dropped
    first_alert=Alert(1, 17, "clang-diagnostic-ignored-pragmas", "'#pragma comment linker' ignored"),
    recorded_count=55,
)
CPP_1152B = CppView(
    sample_id="1152_B_cpp_0",
    visible='#include <bits/stdc++.h>\n#pragma comment(linker, "/STACK:10000000000")\nusing namespace std;\n',
    completion="signed main() {\n  long long n;\n  cin >> n;\n  cout << n << '\\n';\n  return 0;\n}\n",
    first_alert=Alert(2, 17, "clang-diagnostic-ignored-pragmas", "'#pragma comment linker' ignored"),
    recorded_count=16,
)
CPP_1152B_REVISION = CppView(
    sample_id="1152_B_cpp_0 (revision)",
    visible="#include <bits/stdc++.h>\n\nusing namespace std;\n\nsigned main() {\n  long long n;\n  cin >> n;\n",
    completion="  cout << n << '\\n';\n  return 0;\n}\n",
    first_alert=None,  # first recorded alert of the revision is at line 56: nothing on lines 1-7
    recorded_count=2,
)
CPP_VIEWS = [CPP_106C, CPP_106C_REVISION, CPP_1045F, CPP_1045F_REVISION, CPP_1007D, CPP_1152B, CPP_1152B_REVISION]
