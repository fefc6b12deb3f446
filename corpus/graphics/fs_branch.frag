#version 450
layout(location = 0) noperspective in vec4 v0;
layout(location = 0) out vec4 o0;
void main() {
    vec4 c = v0;
    if (!(gl_FragCoord.x >= 16.0)) { c.x = c.x * 0.5; c.y = c.y + 0.25; } else { c.x = 1.0 - c.x; }
    o0 = c;
}
