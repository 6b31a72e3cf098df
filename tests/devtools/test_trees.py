"""print_routes() and print_plugins() on the seed scenario."""
import re

from test_encapsulation import build


def test_print_routes_renders_the_tree():
    app = build(False)
    app.ready()
    assert app.print_routes() == (
        "├── /path_1 (GET, HEAD)\n"
        "├── /path_2 (GET, HEAD)\n"
        "└── /path_3 (GET, HEAD)\n")


def test_print_plugins_renders_the_tree():
    app = build(False)
    app.ready()
    text = re.sub(r"\d+ ms", "N ms", app.print_plugins())
    assert text == (
        "root N ms\n"
        "├─┬ first_child N ms\n"
        "│ └── stand_in_bearer_auth N ms\n"
        "└─┬ second_child N ms\n"
        "  └── grandchild N ms\n")
