// Package model holds the Spin model of the reactor loop's publication/wait
// protocol and of close (reactor.pml; README.md maps its actions to the
// code), the test that model-checks it and its mutants (TestModel, which
// needs spin and gcc), and the trace checker that replays a reactor
// Engine's recorded events against the model's transition rules
// (CheckTrace), so the model and the code cannot drift apart unseen.
package model
