package scenario

// Format writes a Scenario as a scenario file: a generated schedule (issue
// 14's simulation runs) is a plain Scenario value, printed with Format and
// replayed with Parse / Load. Parse(Format(sc)) gives sc back; a test
// checks the fixpoint on every shipped file.

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Format renders sc as a scenario file. Each expectation's Comment is
// written above it (a literal bound must say where it comes from).
func Format(sc *Scenario) ([]byte, error) {
	doc := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, v *yaml.Node) {
		doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	}
	add("id", str(sc.ID))
	add("covers", flowList(sc.Covers))
	cluster, err := encode(sc.Cluster)
	if err != nil {
		return nil, err
	}
	if len(cluster.Content) > 0 {
		add("cluster", cluster)
	}
	switch {
	case len(sc.Consumers) == 1 && sc.Consumers[0].Name == DefaultConsumer:
		c, err := consumerNode(sc.Consumers[0])
		if err != nil {
			return nil, err
		}
		if len(c.Content) > 0 {
			add("consumer", c)
		}
	case len(sc.Consumers) > 0:
		cs := &yaml.Node{Kind: yaml.MappingNode}
		for _, c := range sc.Consumers {
			n, err := consumerNode(c)
			if err != nil {
				return nil, err
			}
			cs.Content = append(cs.Content, str(c.Name), n)
		}
		add("consumers", cs)
	}
	steps := &yaml.Node{Kind: yaml.SequenceNode}
	for _, st := range sc.Steps {
		n, err := stepNode(st)
		if err != nil {
			return nil, err
		}
		steps.Content = append(steps.Content, n)
	}
	add("steps", steps)
	expect := &yaml.Node{Kind: yaml.SequenceNode}
	for _, e := range sc.Expect {
		args, err := encode(e.Args)
		if err != nil {
			return nil, err
		}
		args.Style = yaml.FlowStyle
		item := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str(e.Kind), args}}
		if c := strings.TrimSpace(e.Comment); c != "" {
			item.HeadComment = "# " + strings.ReplaceAll(strings.TrimPrefix(c, "# "), "\n", "\n# ")
		}
		expect.Content = append(expect.Content, item)
	}
	add("expect", expect)
	if len(sc.Signals) > 0 {
		add("signals", flowList(sc.Signals))
	}
	if len(sc.Liveness) > 0 {
		add("liveness", flowList(sc.Liveness))
	}
	if len(sc.Evidence) > 0 {
		add("evidence", evidenceNode(sc.Evidence))
	}
	var b bytes.Buffer
	title := strings.ReplaceAll(sc.Title, "\n", " ")
	if title == "" {
		title = "(no title)"
	}
	fmt.Fprintf(&b, "# %s\n", title)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }

func flowList(ss []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range ss {
		n.Content = append(n.Content, str(s))
	}
	return n
}

// encode turns v into a node (yaml.v3's own marshalling of the tags).
func encode(v any) (*yaml.Node, error) {
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, err
	}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return &yaml.Node{Kind: yaml.MappingNode}, nil
	}
	flowMaps(&n)
	return &n, nil
}

// flowMaps writes nested mappings and lists in flow style.
func flowMaps(n *yaml.Node) {
	for _, c := range n.Content {
		if c.Kind == yaml.MappingNode || c.Kind == yaml.SequenceNode {
			c.Style = yaml.FlowStyle
		}
		flowMaps(c)
	}
}

func consumerNode(c *ConsumerSpec) (*yaml.Node, error) {
	n, err := encode(c)
	if err != nil {
		return nil, err
	}
	// Drop what the parser infers: a regular kind, a share consumer's
	// group true.
	out := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value == "kind" && v.Value == KindRegular {
			continue
		}
		if k.Value == "group" && v.Value == "true" {
			v = &yaml.Node{Kind: yaml.ScalarNode, Value: "true", Tag: "!!bool"}
		}
		out.Content = append(out.Content, k, v)
	}
	settings, err := c.Settings.nodes()
	out.Content = append(out.Content, settings...)
	return out, err
}

func stepNode(st *Step) (*yaml.Node, error) {
	args, err := encode(st.Args)
	if err != nil {
		return nil, err
	}
	if a, ok := st.Args.(*Assign); ok {
		// assign's arguments are topic: [partitions].
		args = &yaml.Node{Kind: yaml.MappingNode}
		for _, t := range slices.Sorted(maps.Keys(a.Partitions)) {
			ps := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			for _, p := range a.Partitions[t] {
				ps.Content = append(ps.Content, str(fmt.Sprint(p)))
			}
			args.Content = append(args.Content, str(t), ps)
		}
	}
	mod := func(k, v string) { args.Content = append(args.Content, str(k), str(v)) }
	if st.As != "" {
		mod("as", st.As)
	}
	if st.Consumer != "" {
		mod("consumer", st.Consumer)
	}
	if st.At != nil {
		mod("at", st.At.String())
	}
	if st.Background {
		mod("background", "true")
	}
	args.Style = yaml.FlowStyle
	return &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{str(st.Kind), args}}, nil
}
