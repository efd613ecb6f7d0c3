package reports

import (
	"html"
	"regexp"
	"strings"
)

// Link targets the reports use.
const (
	// KIPURL is KIP-1371's page on the Apache Kafka wiki.
	KIPURL = "https://cwiki.apache.org/confluence/spaces/KAFKA/pages/449282795/KIP-1371%2BIntroduce%2Ba%2BConsumer%2BReactor%2Bfor%2BState%2BManagement%2Band%2BEvent%2BProcessing"
	// JiraURL is the prefix of an Apache Kafka Jira issue's page.
	JiraURL = "https://issues.apache.org/jira/browse/"
	// UmbrellaJira is the issue the Jira export is meant for.
	UmbrellaJira = "KAFKA-20995"
)

var linkable = regexp.MustCompile(`\bKAFKA-[0-9]+\b|\bKIP-1371\b`)

// JiraLink returns the Jira URL of a KAFKA-NNNNN id, or "" for anything else.
func JiraLink(id string) string {
	if m := linkable.FindString(id); m == id && strings.HasPrefix(id, "KAFKA-") {
		return JiraURL + id
	}
	return ""
}

// linkURL is the page a linkable token points to.
func linkURL(tok string) string {
	if tok == "KIP-1371" {
		return KIPURL
	}
	return JiraURL + tok
}

// linkifyHTML escapes s for HTML and links every KAFKA-NNNNN and KIP-1371 in it.
func linkifyHTML(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range linkable.FindAllStringIndex(s, -1) {
		b.WriteString(html.EscapeString(s[last:m[0]]))
		tok := s[m[0]:m[1]]
		b.WriteString(`<a href="` + html.EscapeString(linkURL(tok)) + `">` + tok + `</a>`)
		last = m[1]
	}
	b.WriteString(html.EscapeString(s[last:]))
	return b.String()
}
