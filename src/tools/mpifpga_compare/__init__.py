"""mpifpga_compare: the python package behind mpifpga-compare (a message
size sweep: offload vs MPICH vs the MPICH baseline model) and
mpifpga-compare-app (an application's profile and offload runs compared).

The two installed commands are thin launchers that put the directory
holding this package on sys.path and call sweep.launch or app.launch.
Installed in $(pkgdatadir)/mpifpga_compare; in the build tree `make` copies
it next to the launchers.

Modules:
  common       errors, tool lookup, number formats and gnuplot helpers both use
  sweep        mpifpga-compare's main: plan, run, merge, write, print
  cli          mpifpga-compare's options and --help text
  progress     its notes on stderr and the terminal's progress line
  runs         launching the model, offload and MPICH runs
  osu          parsing the CSV mpifpga-osu and mpifpga-sim print
  table        output: the text tables on stdout
  csvout       output: compare.csv
  jsonout      output: compare.json
  plot         output: plots.gp and its figures
  app          mpifpga-compare-app's main
  app_cli      its options and --help text
  app_runs     the profile and offload runs of the application
  reports      reading mpifpga-run's JSON reports
  app_match    matching instances between the reports, application time
  app_table    output: the two text tables on stdout
  app_csv      output: app.csv and instances.csv
  app_json     output: app.json
  app_plot     output: instances.gp and its figure
"""
