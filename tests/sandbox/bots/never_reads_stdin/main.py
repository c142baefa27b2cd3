"""Says it is ready, then never reads stdin.

Expected: send_line returns False (it does not block forever) once the
pipes are full; stop is quick.
"""

import time

print('{"ready": true}', flush=True)
time.sleep(600)
