package client

import (
	"reflect"
	"testing"

	"github.com/kreactor/kreactor/managers"
)

// Snapshot.same decides whether the previous snapshot is published again,
// so it must compare every field: a field added to Snapshot and left out
// of same would publish a stale snapshot. Each field set on its own makes
// the two differ.
func TestSnapshotSameComparesEveryField(t *testing.T) {
	var zero Snapshot
	if !zero.same(&Snapshot{}) {
		t.Fatal("two zero snapshots differ")
	}
	typ := reflect.TypeOf(zero)
	for i := range typ.NumField() {
		var s Snapshot
		f := reflect.ValueOf(&s).Elem().Field(i)
		switch f.Kind() {
		case reflect.Slice:
			f.Set(reflect.ValueOf([]managers.TopicPartition{{Topic: "t"}}))
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.SetInt(1)
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			f.SetUint(1)
		default:
			t.Fatalf("Snapshot.%s: kind %s not covered by this test", typ.Field(i).Name, f.Kind())
		}
		if s.same(&zero) || zero.same(&s) {
			t.Errorf("Snapshot.%s set, same still reports the snapshots equal", typ.Field(i).Name)
		}
	}
}
