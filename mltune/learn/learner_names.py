"""The names of the learners a cost model is fitted with (`mltune.learn.learners`), importable without
scikit-learn, so that the command line can check `--learner` before it loads anything."""

FOREST = "random-forest"
BOOSTED = "boosted-trees"
RANKING = "ranking-trees"
LEARNER_NAMES = (FOREST, BOOSTED, RANKING)  # the first wins a tie in `mltune train`'s choice
