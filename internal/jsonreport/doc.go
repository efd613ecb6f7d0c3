// Package jsonreport decodes what this module reads of a Ginkgo JSON
// report (`ginkgo --json-report`: a JSON array of one report per suite),
// so the report builder and the planner read run files without linking
// Ginkgo: the field names and encodings are those of Ginkgo v2's
// types.Report, types.SpecReport and types.ReportEntry, and fields this
// module does not read are ignored.
package jsonreport
