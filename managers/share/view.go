package share

import "github.com/kreactor/kreactor/managers"

// View is what every share-consumer manager sees in one poll round
// (managers.View). InGroup says the member has joined (an epoch > 0) and
// may fetch. Polling says the application is waiting in Poll: share
// fetches are demand-driven, so records are acquired (and locked) only for
// an application that is consuming.
type View managers.View
