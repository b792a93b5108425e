"""WordNet 3.0's nouns as Debian's `wordnet-base` installs them (/usr/share/wordnet), read for the
words a thing found in a photo is searched by: its synset's own words, and those of every
broader synset above it (a Samoyed is a spitz, a dog, a canine, a carnivore, a mammal, an
animal). ImageNet's classes are WordNet noun synsets whose ids are their offsets in this very
file (n02111889 is offset 02111889), so a classifier's label maps to its synset exactly.

The files are a system package's, not a request's, and are read once at start; still, what is
read is bounded (lines, words, pointers, depth)."""

import os

FOLDER = "/usr/share/wordnet"
# The synsets too general to be a search word: entity, physical entity, abstraction, thing,
# object, whole, living thing, artifact.
TOO_GENERAL = {"00001740", "00001930", "00002137", "00002452", "00002684", "00003553", "00004258", "00021939"}
MAX_TERMS = 40
MAX_DEPTH = 30
# The categories a thing a detector names belongs in: artifacts, organisms, food, plants.
CONCRETE = {"00021939", "00004475", "00021265", "00017222"}


class WordNet:
    def __init__(self, folder=FOLDER):
        self.words = {}
        self.hypernyms = {}
        self.senses = {}
        data = os.path.join(folder, "data.noun")
        with open(data, encoding="utf-8", errors="replace") as file:
            for count, line in enumerate(file):
                if count > 200_000:
                    raise ValueError(f"{data} has more lines than WordNet's nouns")
                if line.startswith(" ") or len(line) > 20_000:
                    continue
                fields = line.split(" | ", 1)[0].split()
                try:
                    offset, kind = fields[0], fields[2]
                    words = int(fields[3], 16)
                    names = [fields[4 + 2 * n].replace("_", " ") for n in range(min(words, 64))]
                    at = 4 + 2 * words
                    pointers = int(fields[at])
                    above = []
                    for n in range(min(pointers, 1_000)):
                        symbol, target, part = fields[at + 1 + 4 * n : at + 4 + 4 * n]
                        if symbol in ("@", "@i") and part == "n":
                            above.append(target)
                except (IndexError, ValueError):
                    continue
                if kind != "n":
                    continue
                # An adjective's marker ("(a)", "(p)") is not part of the word.
                self.words[offset] = [name.split("(")[0] for name in names]
                self.hypernyms[offset] = above
        index = os.path.join(folder, "index.noun")
        with open(index, encoding="utf-8", errors="replace") as file:
            for line in file:
                if line.startswith(" ") or len(line) > 20_000:
                    continue
                fields = line.split()
                try:
                    pointers = int(fields[3])
                    self.senses[fields[0].replace("_", " ")] = fields[6 + pointers :]
                except (IndexError, ValueError):
                    continue

    def above(self, offset):
        """Every synset above `offset`, nearest first, each once."""
        seen, order, level = {offset}, [], [offset]
        for _ in range(MAX_DEPTH):
            level = [up for synset in level for up in self.hypernyms.get(synset, []) if up not in seen]
            if not level:
                break
            for synset in level:
                seen.add(synset)
                order.append(synset)
        return order

    def terms(self, offset):
        """The words `offset` is found by: its own, then those of the synsets above it, nearest
        first, each once, the too general left out; at most MAX_TERMS."""
        terms = []
        for synset in [offset] + self.above(offset):
            if synset in TOO_GENERAL:
                continue
            for word in self.words.get(synset, []):
                if word and word.lower() not in (term.lower() for term in terms):
                    terms.append(word)
        return terms[:MAX_TERMS]

    def concrete_sense(self, lemma):
        """The commonest sense of `lemma` that is a thing one can photograph (an artifact, an
        organism, food), else its commonest sense; None for a word WordNet does not have."""
        senses = self.senses.get(lemma.lower(), [])
        for synset in senses:
            if CONCRETE & set(self.above(synset)):
                return synset
        return senses[0] if senses else None

    def synset_of_label(self, names, after):
        """The synset whose words are a classifier label's names (ImageNet's "Samoyed,
        Samoyede"), the first past offset `after`: ImageNet numbers its classes in the order of
        their offsets, which tells apart two classes of one word (the bird and the machine, both
        "crane")."""
        candidates = []
        for synset in self.senses.get(names[0].lower(), []):
            words = [word.lower() for word in self.words.get(synset, [])]
            if all(name.lower() in words for name in names):
                candidates.append(synset)
        later = sorted(synset for synset in candidates if synset > after)
        return later[0] if later else None
