# core/metrics: the metric parser, the files beside a log, system samples and TensorBoard event
# files. Included by tests/CMakeLists.txt.
ferry_test(tst_metricparser SOURCES metrics/tst_metricparser.cpp)
# Real logs of other people's training scripts (../shared/corpus/logs/), against log_oracle.py.
ferry_test(tst_logcorpus SOURCES metrics/tst_logcorpus.cpp)
# The files training libraries write beside the log: trainer_state.json, metrics.csv.
ferry_test(tst_metricfiles SOURCES metrics/tst_metricfiles.cpp)
# system.samples: a run's CPU, memory and GPU metrics.
ferry_test(tst_systemsamples SOURCES metrics/tst_systemsamples.cpp)
# TensorBoard event files: the corpus's and ones written by python3-protobuf, against event_oracle.py.
ferry_test(tst_eventfile SOURCES metrics/tst_eventfile.cpp)
# Images, histograms, text and hparams: event files and histograms.jsonl written by media_writer.py
# through the protobuf, the attacks the issue names, the corpus' histogram and hparams.
ferry_test(tst_media SOURCES metrics/tst_media.cpp)
