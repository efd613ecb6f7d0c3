package inner

import _ "example.com/thirdparty"
