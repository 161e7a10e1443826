from django.apps import AppConfig


class CorpusConfig(AppConfig):
    name = "evalplatform.corpus"
    label = "corpus"
    verbose_name = "Corpus: datasets, contexts, questions, text pairs"
