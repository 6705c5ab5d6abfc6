// The price catalogs Ferry ships (resources/catalog/*.csv), compiled in by core/CMakeLists.txt.
#pragma once

#include <QByteArray>

namespace ferry::cost {

// Each file's text as shipped; parseCatalog reads it as it reads any catalog.
QByteArray awsCatalogText();
QByteArray azureCatalogText();
QByteArray gcpCatalogText();
QByteArray sageMakerCatalogText(); // SageMaker's training instances (ml.*): not EC2's prices

} // namespace ferry::cost
