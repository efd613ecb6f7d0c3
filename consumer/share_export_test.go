package consumer_test

import "github.com/kreactor/kreactor/managers/share"

func errNotDelivered() error { return share.ErrNotDelivered }
