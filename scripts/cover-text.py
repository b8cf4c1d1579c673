#!/usr/bin/env python3
"""cover-text: print the subject and blurb of a format-patch cover letter,
as 'subject\\n\\nbody', the form git's --cover-from-description=subject reads."""
import re
import sys

text = open(sys.argv[1]).read()
head, _, body = text.partition('\n\n')
m = re.search(r'^Subject: (.*(?:\n[ \t].*)*)', head, re.M)
subject = re.sub(r'\s+', ' ', m.group(1)) if m else ''
subject = re.sub(r'^\[[^\]]*\]\s*', '', subject)
blurb = []
for line in body.split('\n'):
    if re.match(r'^\S.* \(\d+\):$', line):      # the shortlog starts
        break
    blurb.append(line)
print(subject + '\n\n' + '\n'.join(blurb).strip())
