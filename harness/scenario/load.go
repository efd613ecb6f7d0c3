package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"go.yaml.in/yaml/v3"
)

// Loaded is one file's load result: its Scenario, or the error that names
// file, line and key.
type Loaded struct {
	File     string
	Scenario *Scenario
	Err      error
}

// LoadDir loads every *.yaml file in dir, sorted by name, each on its own:
// a bad file is its own entry's error and never hides another file. Ids must
// be unique across the files (the later file gets the error). The error is
// for a directory that cannot be listed or holds no *.yaml file.
func LoadDir(dir string) ([]Loaded, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("scenario: no *.yaml files in %s", dir)
	}
	slices.Sort(files)
	return LoadFiles(files...), nil
}

// LoadFiles loads the files as LoadDir does (ids unique across them).
func LoadFiles(files ...string) []Loaded {
	out := make([]Loaded, 0, len(files))
	ids := map[string]string{}
	for _, f := range files {
		sc, err := Load(f)
		if err == nil {
			if prev, dup := ids[sc.ID]; dup {
				sc, err = nil, &Error{File: f, Line: sc.idLine, Key: "id", Msg: fmt.Sprintf("duplicate id %q (also in %s): every scenario needs its own", sc.ID, prev)}
			} else {
				ids[sc.ID] = f
			}
		}
		out = append(out, Loaded{File: f, Scenario: sc, Err: err})
	}
	return out
}

// Load reads and validates one scenario file. Only a regular file of at
// most MaxFileBytes is read (a FIFO, a device such as /dev/zero, a
// directory are refused before any read). Errors: *Error for anything
// wrong in the file, or the read error naming the path.
func Load(file string) (*Scenario, error) {
	data, err := readCapped(file)
	if err != nil {
		return nil, err
	}
	return Parse(file, data)
}

// readCapped reads file if it is a regular file of at most MaxFileBytes.
func readCapped(file string) ([]byte, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, &Error{File: file, Msg: fileErr("stat", err), Err: err}
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{File: file, Msg: fmt.Sprintf("not a regular file (%s): scenario files are read only from regular files", fileType(st.Mode()))}
	}
	if st.Size() > MaxFileBytes {
		return nil, &Error{File: file, Msg: fmt.Sprintf("%d bytes, more than MaxFileBytes (%d)", st.Size(), MaxFileBytes)}
	}
	// O_NONBLOCK: should the path have become a FIFO since the Stat, the
	// open does not wait for a writer.
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, &Error{File: file, Msg: fileErr("open", err), Err: err}
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, &Error{File: file, Msg: "not a regular file: scenario files are read only from regular files"}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, &Error{File: file, Msg: fileErr("read", err), Err: err}
	}
	if len(data) > MaxFileBytes {
		return nil, &Error{File: file, Msg: fmt.Sprintf("more than MaxFileBytes (%d) bytes", MaxFileBytes)}
	}
	return data, nil
}

// fileErr describes a stat, open or read error without repeating the path
// (the Error names it): "stat: too many levels of symbolic links".
func fileErr(op string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	msg := op + ": " + err.Error()
	if errors.Is(err, fs.ErrNotExist) {
		msg += " (a missing file, or a symbolic link to one)"
	}
	return msg
}

// fileType names a non-regular file's type in words.
func fileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// Parse validates data as the scenario file named file: the whole file is
// checked here, so every entry point (kreactor check, kreactor run, the
// suite) applies the same rules before anything runs.
func Parse(file string, data []byte) (*Scenario, error) {
	p := &parser{file: file}
	if len(data) > MaxFileBytes {
		return nil, p.errf(0, "", "more than MaxFileBytes (%d) bytes", MaxFileBytes)
	}
	first, _, _ := bytes.Cut(data, []byte("\n"))
	if !bytes.HasPrefix(bytes.TrimSpace(first), []byte("#")) {
		return nil, p.errf(1, "", "the first line must be a \"# ...\" comment saying what the scenario checks")
	}
	sc := &Scenario{File: file, Title: strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(first)), "#"))}
	if sc.Title == "" {
		return nil, p.errf(1, "", "the first line's comment is empty: say what the scenario checks")
	}
	// A decoder, not yaml.Unmarshal: Unmarshal reads the first document
	// and ignores the rest, so a second one would be silently dropped.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && err != io.EOF {
		return nil, p.errf(yamlErrLine(err), "", "not valid YAML: %v", err)
	}
	for {
		var extra yaml.Node
		err := dec.Decode(&extra)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, p.errf(yamlErrLine(err), "", "not valid YAML after the scenario's document (a file holds one document): %v", err)
		}
		// A bare --- at the end starts an empty document: nothing lost.
		if c := extra.Content; len(c) > 0 && !(c[0].Kind == yaml.ScalarNode && c[0].Tag == "!!null" && c[0].Value == "") {
			return nil, p.errf(c[0].Line, "", "a second YAML document: a scenario file holds one (remove the --- or ... before it)")
		}
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, p.errf(1, "", "the document must be a mapping")
	}
	if err := p.checkNoAliases(doc.Content[0]); err != nil {
		return nil, err
	}
	if err := p.top(doc.Content[0], sc); err != nil {
		return nil, err
	}
	if err := check(p, sc); err != nil {
		return nil, err
	}
	return sc, nil
}

// yamlLine finds the line yaml.v3 names in its syntax errors.
var yamlLine = regexp.MustCompile(`line (\d+)`)

// yamlErrLine is the line a yaml.v3 error names, or 0.
func yamlErrLine(err error) int {
	line := 0
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
	}
	return line
}

func (p *parser) top(n *yaml.Node, sc *Scenario) error {
	handlers := map[string]func(k, v *yaml.Node) error{
		"id": func(k, v *yaml.Node) error {
			sc.idLine = k.Line
			return p.str(v, "id", true, &sc.ID)
		},
		"covers": func(k, v *yaml.Node) error {
			sc.coversLine = k.Line
			return p.strList(v, "covers", &sc.Covers)
		},
		"cluster":   func(_, v *yaml.Node) error { return p.cluster(v, &sc.Cluster) },
		"consumer":  func(_, v *yaml.Node) error { return p.consumers(v, sc, true) },
		"consumers": func(_, v *yaml.Node) error { return p.consumers(v, sc, false) },
		"steps":     func(_, v *yaml.Node) error { return p.steps(v, &sc.Steps) },
		"expect":    func(_, v *yaml.Node) error { return p.expectations(v, &sc.Expect) },
		"signals": func(k, v *yaml.Node) error {
			sc.signalsLine = k.Line
			return p.strList(v, "signals", &sc.Signals)
		},
		"liveness": func(k, v *yaml.Node) error {
			sc.livenessLine = k.Line
			return p.strList(v, "liveness", &sc.Liveness)
		},
		"evidence": func(_, v *yaml.Node) error { return p.evidenceMap(v, sc) },
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		h, ok := handlers[k.Value]
		if !ok {
			names := make([]string, 0, len(handlers))
			for name := range handlers {
				names = append(names, name)
			}
			slices.Sort(names)
			return p.errf(k.Line, k.Value, "unknown key in scenario (known: %s)", strings.Join(names, ", "))
		}
		if seen[k.Value] {
			return p.errf(k.Line, k.Value, "repeated key in scenario")
		}
		seen[k.Value] = true
		if err := h(k, v); err != nil {
			return err
		}
	}
	for _, r := range []string{"id", "covers", "steps", "expect"} {
		if !seen[r] {
			return p.errf(n.Line, r, "missing required key in scenario")
		}
	}
	if seen["consumer"] && seen["consumers"] {
		return p.errf(n.Line, "consumers", "give consumer (one) or consumers (named), not both")
	}
	if len(sc.Consumers) == 0 {
		sc.Consumers = []*ConsumerSpec{{Name: DefaultConsumer, Line: n.Line, Kind: KindRegular, lines: keyLines{}}}
	}
	return nil
}

func (p *parser) strList(n *yaml.Node, key string, out *[]string) error {
	if err := p.sized(n, yaml.SequenceNode, key, "want a non-empty list of strings", "entries", MaxListLen, "MaxListLen"); err != nil {
		return err
	}
	for _, c := range n.Content {
		var s string
		if err := p.str(c, key, true, &s); err != nil {
			return err
		}
		*out = append(*out, s)
	}
	return nil
}

func (p *parser) consumers(n *yaml.Node, sc *Scenario, single bool) error {
	if single {
		c, err := p.consumerSpec(DefaultConsumer, n)
		if err != nil {
			return err
		}
		sc.Consumers = []*ConsumerSpec{c}
		return nil
	}
	const want = "want a mapping of consumer names to their settings"
	return p.namedMap(n, "consumers", want, "consumers", MaxConsumers, "MaxConsumers", func(name string, k, v *yaml.Node) error {
		if name == "all" {
			return p.errf(k.Line, name, "\"all\" names every consumer in expectations: pick another name")
		}
		if _, dup := sc.ConsumerByName(name); dup {
			return p.errf(k.Line, name, "consumer named twice")
		}
		c, err := p.consumerSpec(name, v)
		if err != nil {
			return err
		}
		c.Line = k.Line
		sc.Consumers = append(sc.Consumers, c)
		return nil
	})
}

func (p *parser) cluster(n *yaml.Node, c *ClusterSpec) error {
	var spec struct {
		Brokers           *int              `yaml:"brokers"`
		Topics            map[string]string `yaml:"topics"`
		HeartbeatInterval *Duration         `yaml:"heartbeat_interval" sc:"max=step"`
		SessionTimeout    *Duration         `yaml:"session_timeout" sc:"max=step"`
		ShareLockDuration *Duration         `yaml:"share_lock_duration" sc:"max=step"`
	}
	lines, err := p.decodeStruct(n, "cluster", &spec, map[string]func(*yaml.Node) error{
		"brokers": func(v *yaml.Node) error {
			b, err := strconv.Atoi(v.Value)
			if v.Kind != yaml.ScalarNode || err != nil || b < 1 || b > MaxBrokers {
				return p.errf(v.Line, "brokers", "want 1..%d brokers (MaxBrokers; leave brokers out for %d), got %s", MaxBrokers, DefaultBrokers, describe(v))
			}
			c.Brokers = b
			c.brokersLine = v.Line
			return nil
		},
		"topics": func(v *yaml.Node) error {
			if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
				return p.errf(v.Line, "topics", "want a mapping of topic names to partition counts")
			}
			if len(v.Content)/2 > MaxTopics {
				return p.errf(v.Line, "topics", "%d topics, more than MaxTopics (%d)", len(v.Content)/2, MaxTopics)
			}
			c.Topics = map[string]int32{}
			for i := 0; i+1 < len(v.Content); i += 2 {
				k, pv := v.Content[i], v.Content[i+1]
				var name string
				if err := p.str(k, "topics", true, &name); err != nil {
					return err
				}
				if _, dup := c.Topics[name]; dup {
					return p.errf(k.Line, name, "topic named twice")
				}
				parts, err := p.integer(pv, name, fieldRule{min: 1, max: "partitions"})
				if err != nil {
					return err
				}
				c.Topics[name] = int32(parts)
			}
			return nil
		},
	})
	if err != nil {
		return err
	}
	for _, d := range []struct {
		key string
		src *Duration
		dst *Duration
	}{{"heartbeat_interval", spec.HeartbeatInterval, &c.HeartbeatInterval}, {"session_timeout", spec.SessionTimeout, &c.SessionTimeout}, {"share_lock_duration", spec.ShareLockDuration, &c.ShareLockDuration}} {
		if d.src != nil {
			if *d.src == 0 {
				return p.errf(lines.line(d.key, n.Line), d.key, "0 would silently be the target's default: leave the key out for the default")
			}
			*d.dst = *d.src
		}
	}
	return nil
}

// isNotRegular reports a refusal of a non-regular file (for tests).
func isNotRegular(err error) bool {
	var e *Error
	return errors.As(err, &e) && strings.Contains(e.Msg, "not a regular file")
}
