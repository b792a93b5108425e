"""The web page's modules import one way: main.js wires what would go back up (issue 48 found
grid.js, viewer.js and editor.js importing each other, and albums.js and sidebar.js), so
that each can be read, and loaded, without the ones that use it."""
import os
import re
import unittest

WEB = os.path.join(os.path.dirname(__file__), "..", "..", "Sources", "LightboxServer", "Web")
IMPORT = re.compile(r"^import\s+(?:[^'\"]*?\s+from\s+)?['\"]\./([A-Za-z0-9_-]+\.js)['\"]", re.M)


def imports():
    graph = {}
    for name in sorted(os.listdir(WEB)):
        if name.endswith(".js"):
            with open(os.path.join(WEB, name), encoding="utf-8") as source:
                graph[name] = IMPORT.findall(source.read())
    return graph


class ModuleTests(unittest.TestCase):
    def test_the_modules_import_one_way(self):
        graph = imports()
        self.assertIn("grid.js", graph["main.js"], "the pattern finds main.js's imports")
        # Depth first: a module met again while its own imports are being walked is a cycle.
        state, cycles = {}, []

        def walk(name, path):
            state[name] = "walking"
            for imported in graph.get(name, []):
                if state.get(imported) == "walking":
                    cycles.append(path[path.index(imported):] + [imported])
                elif imported not in state:
                    walk(imported, path + [imported])
            state[name] = "done"

        for name in graph:
            if name not in state:
                walk(name, [name])
        self.assertEqual(cycles, [], "modules importing each other: " + "; ".join(" -> ".join(c) for c in cycles))

    def test_every_name_imported_is_exported(self):
        # A module that imports a name its source no longer exports fails to load, and with it
        # the whole page: found here, not by the first browser test that meets it.
        named = re.compile(r"^import\s*\{([^}]*)\}\s*from\s*['\"]\./([A-Za-z0-9_-]+\.js)['\"]", re.M)
        exported = re.compile(r"^export\s+(?:async\s+)?(?:function\*?|const|let|class)\s+([A-Za-z0-9_$]+)", re.M)
        sources = {}
        for name in os.listdir(WEB):
            if name.endswith(".js"):
                with open(os.path.join(WEB, name), encoding="utf-8") as source:
                    sources[name] = source.read()
        missing = []
        for name, text in sources.items():
            for names, module in named.findall(text):
                exports = set(exported.findall(sources.get(module, "")))
                for imported in names.split(","):
                    imported = imported.strip().split(" as ")[0].strip()
                    if imported and imported not in exports:
                        missing.append(f"{name} imports {imported} from {module}")
        self.assertGreater(len(sources), 10)
        self.assertEqual(missing, [])

    def test_every_module_is_served(self):
        # Each module is compiled into the server (Package.swift's resources): one left out
        # would be a 404 the page meets only when it is imported.
        with open(os.path.join(WEB, "..", "..", "..", "Package.swift"), encoding="utf-8") as manifest:
            listed = set(re.findall(r'"([A-Za-z0-9_-]+\.(?:js|html|css|svg))"', manifest.read()))
        self.assertEqual({name for name in os.listdir(WEB) if name.endswith(".js")} - listed, set())


if __name__ == "__main__":
    unittest.main()
